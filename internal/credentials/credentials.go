// Package credentials reads and writes the file where `hitl serve` leaves the server's URL
// and the first admin token, so that hitl commands on the same machine work with no set-up.
package credentials

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is the content of the credentials file.
type File struct {
	URL   string `json:"url"`
	Token string `json:"token,omitempty"`
}

// Path is HITL_CREDENTIALS, else credentials.json in the user's config directory for hitl.
func Path() (string, error) {
	if p := os.Getenv("HITL_CREDENTIALS"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no place for the credentials file (set HITL_CREDENTIALS): %w", err)
	}
	return filepath.Join(dir, "hitl", "credentials.json"), nil
}

// Load reads the file; a missing file is no error and gives an empty File.
func Load() (File, error) {
	var f File
	p, err := Path()
	if err != nil {
		return f, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s is not a hitl credentials file: %w", p, err)
	}
	return f, nil
}

// Save writes the file with mode 0600 (replacing it whole) and returns its path.
func Save(f File) (string, error) {
	p, err := Path()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", err
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}
