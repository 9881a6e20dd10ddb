package secretbox_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/secretbox"
)

func newKey(t *testing.T) (*secretbox.Key, string) {
	t.Helper()
	raw := make([]byte, secretbox.KeySize)
	rand.Read(raw)
	b64 := base64.StdEncoding.EncodeToString(raw)
	k, err := secretbox.ParseKey(b64)
	if err != nil {
		t.Fatal(err)
	}
	return k, b64
}

func TestSealAndOpen(t *testing.T) {
	k, _ := newKey(t)
	const secret, place = "whsec_c2VjcmV0", "webhook wh_1"
	sealed := k.Seal(secret, place)
	if !secretbox.Sealed(sealed) || strings.Contains(sealed, secret) || !strings.HasPrefix(sealed, "enc:v1:") {
		t.Fatalf("sealed: %q", sealed)
	}
	if again := k.Seal(secret, place); again == sealed {
		t.Fatal("two seals of one secret are the same: the nonce is not random")
	}
	if got, err := k.Open(sealed, place); err != nil || got != secret {
		t.Fatalf("open: %q %v", got, err)
	}
	// Plaintext is told apart and taken as it is, with a key or without.
	var none *secretbox.Key
	for _, key := range []*secretbox.Key{k, none} {
		if got, err := key.Open(secret, place); err != nil || got != secret {
			t.Fatalf("open of plaintext: %q %v", got, err)
		}
	}
	if got := none.Seal(secret, place); got != secret {
		t.Fatalf("no key sealed %q", got)
	}
	if _, err := none.Open(sealed, place); !errors.Is(err, secretbox.ErrNoKey) {
		t.Fatalf("open without a key: %v", err)
	}
}

func TestOpenRefusesWhatItShouldNot(t *testing.T) {
	k, _ := newKey(t)
	other, _ := newKey(t)
	const place = "setting link_secret"
	sealed := k.Seal("whsec_c2VjcmV0", place)
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(sealed, "enc:v1:"))
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-1] ^= 1
	for name, c := range map[string]struct {
		key          *secretbox.Key
		stored, plac string
	}{
		"another key":     {other, sealed, place},
		"another place":   {k, sealed, "setting callback_secret"},
		"a flipped bit":   {k, "enc:v1:" + base64.StdEncoding.EncodeToString(flipped), place},
		"cut short":       {k, "enc:v1:" + base64.StdEncoding.EncodeToString(raw[:10]), place},
		"empty":           {k, "enc:v1:", place},
		"not base64":      {k, "enc:v1:%%%", place},
		"a byte appended": {k, sealed + "AA==", place},
	} {
		if got, err := c.key.Open(c.stored, c.plac); !errors.Is(err, secretbox.ErrWrongKey) || got != "" {
			t.Errorf("%s: %q %v, want ErrWrongKey", name, got, err)
		}
	}
}

func TestParseKey(t *testing.T) {
	dir := t.TempDir()
	k, b64 := newKey(t)
	sealed := k.Seal("s", "p")
	raw, _ := base64.StdEncoding.DecodeString(b64)
	write := func(name string, content []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The same key in every form opens what it sealed.
	for name, given := range map[string]string{
		"base64":        b64,
		"a base64 file": write("b64.key", []byte(b64+"\n")),
		"a raw file":    write("raw.key", raw),
	} {
		got, err := secretbox.ParseKey(given)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s, err := got.Open(sealed, "p"); err != nil || s != "s" {
			t.Fatalf("%s: the key does not open what it sealed: %v", name, err)
		}
	}
	if k, err := secretbox.ParseKey(""); k != nil || err != nil {
		t.Fatalf("empty: %v %v, want no key", k, err)
	}
	for given, want := range map[string]string{
		base64.StdEncoding.EncodeToString(raw[:16]): "decodes to 16 bytes; a key is 32 bytes",
		"not base64!":                                    "neither the path of a key file nor 32 bytes in base64",
		filepath.Join(dir, "missing.key"):                "cannot read the key file",
		write("short.key", []byte("too short\n")):        "holds neither 32 bytes in base64 nor 32 raw bytes",
		write("long.key", append(bytes.Clone(raw), 'x')): "holds neither",
		dir: "cannot read the key file",
	} {
		if k, err := secretbox.ParseKey(given); err == nil || k != nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseKey(%q): %v, want an error saying %q", given, err, want)
		}
	}
}
