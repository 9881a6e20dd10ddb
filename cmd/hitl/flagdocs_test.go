package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// updateDocs rewrites the generated pages instead of comparing them.
const updateDocs = "HITL_UPDATE_DOCS"

// TestConfigurationReferenceIsCurrent: docs/configuration.md is what the flags' definitions
// say, every flag of every command with its variable and default. Defaults that depend on the
// machine are written as the variables they come from.
func TestConfigurationReferenceIsCurrent(t *testing.T) {
	update := os.Getenv(updateDocs) == "1"
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "HITL_") {
			t.Setenv(name, "")
		}
	}
	t.Setenv("XDG_DATA_HOME", "$XDG_DATA_HOME")
	t.Setenv("XDG_CONFIG_HOME", "$XDG_CONFIG_HOME")
	var got bytes.Buffer
	writeFlagReference(&got, newRoot())
	const page = "../../docs/configuration.md"
	if update {
		if err := os.WriteFile(page, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v: write it with %s=1 go test ./cmd/hitl -run TestConfigurationReferenceIsCurrent", err, updateDocs)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("docs/configuration.md is not what the flags say: rewrite it with %s=1 go test ./cmd/hitl -run TestConfigurationReferenceIsCurrent", updateDocs)
	}
	for _, flag := range []string{"--shutdown-timeout", "--smtp-url", "--slack-bot-token", "--db"} {
		if !strings.Contains(got.String(), "`"+flag+"`") {
			t.Errorf("the reference does not name %s", flag)
		}
	}
	// Every variable the commands read, with a flag or without, is on the page.
	for _, dir := range []string{".", "../../internal/credentials"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range variableLiteral.FindAllStringSubmatch(string(src), -1) {
				if !strings.Contains(got.String(), "`"+v[1]+"`") {
					t.Errorf("%s reads %s, which docs/configuration.md does not name", f, v[1])
				}
			}
		}
	}
}

// variableLiteral is a HITL_* variable's name written as a Go string.
var variableLiteral = regexp.MustCompile(`"(HITL_[A-Z0-9_]+)"`)
