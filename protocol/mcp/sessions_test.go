package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// TestSessionTableBounds: a key's least recently used idle session makes room for its new one;
// sessions in use are never ended for room; the total bound refuses rather than end another
// key's session; idle sessions end after the idle time.
func TestSessionTableBounds(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	tab := newSessionTable(time.Minute, 2, 3, func() time.Time { return now })
	open := func(id, key string) (*session, error) {
		s := &session{id: id, key: key}
		return s, tab.add(s)
	}
	a1, _ := open("a1", "key:a")
	tab.done(a1)
	now = now.Add(time.Second)
	a2, _ := open("a2", "key:a")
	tab.done(a2)
	if _, err := open("a3", "key:a"); err != nil || !a1.ended || a2.ended {
		t.Fatalf("a third session of key a: %v, a1 ended %v, a2 ended %v; want a1 (least recently used) ended", err, a1.ended, a2.ended)
	}
	keyA, keyB := &hitl.Principal{KeyID: "a"}, &hitl.Principal{KeyID: "b"}
	if why := tab.whyGone("a1", keyA); !strings.Contains(why, "make room") || !strings.Contains(why, "held 2 sessions") {
		t.Fatalf("why a1 ended, to its key: %q", why)
	}
	if why := tab.whyGone("a1", keyB); why != "" {
		t.Fatalf("why a1 ended, to another key: %q", why)
	}
	// a2 idle, a3 in use: one more ends a2; then both are in use and a fifth is refused.
	if _, err := open("a4", "key:a"); err != nil || !a2.ended {
		t.Fatalf("a4: %v, a2 ended %v", err, a2.ended)
	}
	if _, err := open("a5", "key:a"); err == nil || !strings.Contains(err.Error(), "DELETE") {
		t.Fatalf("a5 with every session in use: %v", err)
	}
	b1, _ := open("b1", "key:b")
	if _, err := open("c1", "key:c"); err == nil || !strings.Contains(err.Error(), "most") || b1.ended {
		t.Fatalf("past the total: %v", err)
	}
	if tab.count() != 3 {
		t.Fatalf("%d sessions, want 3", tab.count())
	}
	tab.done(b1)
	now = now.Add(2 * time.Minute)
	tab.sweep()
	if !b1.ended || tab.count() != 2 {
		t.Fatalf("after the idle time: b1 ended %v, %d left (want the two in use)", b1.ended, tab.count())
	}
	if why := tab.whyGone("b1", keyB); !strings.Contains(why, "after 1m0s without use") {
		t.Fatalf("why b1 ended: %q", why)
	}
	tab.closeAll()
	if tab.count() != 0 {
		t.Fatalf("%d left after closeAll", tab.count())
	}
}
