package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	hitlclient "github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
	"go.temporal.io/server/temporaltest"
)

// syncBuffer is what the example prints, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestExample runs the example against a real Temporal server and a real hitl, and a person
// approves in hitl.
func TestExample(t *testing.T) {
	srv := testserver.Start(t, testserver.AllowPrivate())
	_, token := srv.Key(hitl.KeyRequest{Name: "deployer", Roles: []string{hitl.RoleAgent}})
	ann, _ := srv.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	secret, err := srv.Admin.CallbackSecret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	cfg := config{
		HitlURL: srv.URL, HitlToken: token, CallbackSecret: secret,
		TemporalAddress: ts.GetFrontendHostPort(), Namespace: ts.GetDefaultNamespace(),
		Listen: "127.0.0.1:0",
	}
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), cfg, "v2", &out) }()

	var asked *hitl.Inquiry
	testserver.Eventually(t, time.Minute, "the workflow's question", func() bool {
		page, err := ann.Inquiries(context.Background(), hitlclient.ListOptions{Status: string(hitl.StatusPending)})
		if err == nil && len(page.Data) == 1 {
			asked = page.Data[0]
		}
		return asked != nil
	})
	if asked.Prompt != "Deploy v2 to production?" {
		t.Fatalf("the question is %q", asked.Prompt)
	}
	if _, err := ann.Respond(context.Background(), asked.ID, []byte(`{"approved": true}`), "go"); err != nil {
		t.Fatal(err)
	}
	if err := testserver.Receive(t, done, time.Minute, "the example's end"); err != nil {
		t.Fatal(err)
	}
	want := "workflow deploy-v2 asks a person in hitl whether to deploy v2\ndeployed v2, approved by ann\n"
	if out.String() != want {
		t.Errorf("the example printed\n%s\nwant\n%s", out.String(), want)
	}
}

// TestExampleSaysWhatItNeeds: without a token and a secret it says which to set.
func TestExampleSaysWhatItNeeds(t *testing.T) {
	err := run(context.Background(), config{}, "v2", &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "HITL_TOKEN") {
		t.Fatalf("run without configuration: %v; want it to name HITL_TOKEN", err)
	}
}
