package outbound

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSecrets(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if !strings.HasPrefix(a, "whsec_") || a == b {
		t.Fatalf("secrets %q and %q", a, b)
	}
	if err := CheckSecret(a); err != nil {
		t.Fatalf("a new secret: %v", err)
	}
	if key, err := SecretKey(a); err != nil || len(key) != 24 {
		t.Fatalf("key of %q: %d bytes, %v", a, len(key), err)
	}
	for _, bad := range []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", "whsec_c2hvcnQ="} {
		if CheckSecret(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCloudEvent(t *testing.T) {
	id := int64(42)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b, err := json.Marshal(NewCloudEvent("http://hitl.example", "ev-1", "inquiry.responded", at, Subject(&id, "s1"), json.RawMessage(`{"id":42}`)))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for k, want := range map[string]any{"specversion": "1.0", "id": "ev-1", "source": "http://hitl.example", "type": "hitl.inquiry.responded",
		"subject": "inquiries/42", "datacontenttype": "application/json", "time": "2026-11-22T10:00:00Z"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if d, _ := m["data"].(map[string]any); d["id"] != float64(42) {
		t.Errorf("data = %v", m["data"])
	}
	if s := Subject(nil, "s1"); s != "sessions/s1" {
		t.Errorf("a session's subject: %q", s)
	}
	if s := Subject(nil, ""); s != "" {
		t.Errorf("no subject: %q", s)
	}
}
