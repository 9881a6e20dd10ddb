package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestAskWithADedupKey: two `hitl ask --dedup-key` with one question make one question for
// people; one answer ends both asks with it, and the joined ask names the inquiry to answer.
func TestAskWithADedupKey(t *testing.T) {
	admin, _ := startServer(t)
	first := cliAsync(t, "ask", "Roll back release 41?", "--type", "approval", "--dedup-key", "rollback-41")
	id := pendingID(t, admin)
	second := cliAsync(t, "ask", "Roll back release 41?", "--type", "approval", "--dedup-key", "rollback-41")
	testserver.Eventually(t, 5*time.Second, "the second ask joined the first", func() bool {
		page, err := admin.Inquiries(context.Background(), client.ListOptions{Status: "pending"})
		return err == nil && len(page.Data) == 2 && page.Data[0].Joined != nil && *page.Data[0].Joined == id
	})
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "--approve"); code != 0 {
		t.Fatalf("respond: %d %s", code, errOut)
	}
	for i, ask := range []<-chan cliResult{first, second} {
		r := <-ask
		if r.code != exitOK || strings.TrimSpace(r.stdout) != `{"approved":true}` {
			t.Fatalf("ask: %d %q %q", r.code, r.stdout, r.stderr)
		}
		// The joined ask names the inquiry to answer: its own would be refused (409).
		if want := fmt.Sprintf("which asks the same question: waiting for its answer (hitl show %d; hitl respond %d --approve|--reject)", id, id); i == 1 && !strings.Contains(r.stderr, want) {
			t.Fatalf("the joined ask's hint: %q, want %q", r.stderr, want)
		}
	}
}
