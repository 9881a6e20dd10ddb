package engine_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// TestSessionVersionGuardsChanges: every change of a session moves its version on (a log
// entry does not), and a change asked at a version it has left is a StaleVersion conflict,
// whichever way it changes: its state, a question asked in it, its end.
func TestSessionVersionGuardsChanges(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	version := func() int64 {
		t.Helper()
		v, err := e.SessionVersion(ctx, agent, "run-v")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	at := func(v int64) *int64 { return &v }
	stale := func(err error, given, current int64) {
		t.Helper()
		var sv *engine.StaleVersion
		if !errors.As(err, &sv) || hitl.ErrorCode(err) != hitl.EConflict || sv.Given != given || sv.Current != current {
			t.Fatalf("got %v, want a stale version %d (at %d)", err, given, current)
		}
	}
	if _, _, err := e.PutSession(ctx, agent, "run-v", &hitl.SessionRequest{State: json.RawMessage(`{"step":1}`)}); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != 1 {
		t.Fatalf("a new session is at version %d, want 1", v)
	}
	_, _, err := e.PutSession(ctx, agent, "run-v", &hitl.SessionRequest{State: json.RawMessage(`{"step":2}`), IfVersion: at(1)})
	if err != nil || version() != 2 {
		t.Fatalf("a change at the current version: %v, version %d", err, version())
	}
	_, _, err = e.PutSession(ctx, agent, "run-v", &hitl.SessionRequest{State: json.RawMessage(`{"step":3}`), IfVersion: at(1)})
	stale(err, 1, 2)
	if s, _ := e.Session(ctx, agent, "run-v"); string(s.State) != `{"step":2}` {
		t.Fatalf("a refused change was written: %s", s.State)
	}
	if _, err := e.LogSession(ctx, agent, "run-v", hitl.SessionLogEntry{EventType: "comment"}); err != nil || version() != 2 {
		t.Fatalf("a log entry moved the version: %v, %d", err, version())
	}
	_, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Go on?", Session: "run-v", IfSessionVersion: at(1)}, "")
	stale(err, 1, 2)
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Go on?", Session: "run-v", IfSessionVersion: at(2)}, ""); err != nil || version() != 3 {
		t.Fatalf("a question at the current version: %v, version %d", err, version())
	}
	_, err = e.AbandonSession(ctx, agent, "run-v", "no answer", at(2))
	stale(err, 2, 3)
	_, err = e.FinishSession(ctx, agent, "run-v", engine.SessionEnd{Status: hitl.SessionCompleted, IfVersion: at(2)})
	stale(err, 2, 3)
	if _, err := e.FinishSession(ctx, agent, "run-v", engine.SessionEnd{Status: hitl.SessionCompleted, IfVersion: at(3)}); err != nil {
		t.Fatal(err)
	}
	// The question was cancelled with the end: two changes.
	if v := version(); v != 5 {
		t.Fatalf("after the end: version %d, want 5", v)
	}
	// A change of a version of a session that does not exist does not create it.
	if _, _, err := e.PutSession(ctx, agent, "run-none", &hitl.SessionRequest{IfVersion: at(1)}); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("a change at a version of no session: %v", err)
	}
	if _, err := e.SessionVersion(ctx, otherAgent, "run-v"); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("another agent reads the version: %v", err)
	}
}
