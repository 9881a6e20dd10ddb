package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// TestValidationDoesNotHoldTheWriter: an answer is read, authorized, compiled for and validated
// before the single writer, which only re-checks that the inquiry is pending and writes. While
// one answer's validation is stuck, other writes go on. (Validation used to run inside the
// writer's transaction: one answer of 300 numbers like 1e999999 held every write for 10 s.)
func TestValidationDoesNotHoldTheWriter(t *testing.T) {
	dir := t.TempDir()
	e, stop := open(t, filepath.Join(dir, "db"), nil)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "n?", ResponseSchema: json.RawMessage(`{"type":"integer"}`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	// After a restart the schema is compiled again, on the first answer: outside the writer too.
	e, stop = open(t, filepath.Join(dir, "db"), nil)
	defer stop()
	entered, hold := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	defer release() // before stop: a failed test does not leave the answer stuck
	engine.SetValidating(e, func(*hitl.Inquiry) {
		close(entered)
		<-hold
	})
	answered := make(chan error, 1)
	go func() {
		_, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`7`)})
		answered <- err
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the answer was never validated")
	}
	created := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, _, err := e.CreateInquiry(cctx, agent, &hitl.InquiryRequest{Prompt: "meanwhile?"}, "")
		created <- err
	}()
	select {
	case err := <-created:
		if err != nil {
			t.Fatalf("create while an answer was being validated: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a create waited for another answer's validation")
	}
	release()
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	got, err := e.Inquiry(ctx, human, inq.ID)
	if err != nil || got.Status != hitl.StatusResponded || string(got.Response) != "7" {
		t.Fatalf("after the answer: %+v, %v", got, err)
	}
}

// TestCostlyAnswersAreRefusedBeforeTheWriter: numbers beyond the bounds are refused with the
// path of the first one, as soon as they are read, and the 422 does not wait for the writer.
func TestCostlyAnswersAreRefusedBeforeTheWriter(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "n?",
		ResponseSchema: json.RawMessage(`{"type":"array","items":{"type":"number","maximum":5}}`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	validated := false
	engine.SetValidating(e, func(*hitl.Inquiry) { validated = true })
	answer := "[" + strings.TrimSuffix(strings.Repeat("1e999999,", 300), ",") + "]"
	_, err = e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(answer)})
	var he *hitl.Error
	if !asError(err, &he) || he.Code != hitl.EInvalidResponse || len(he.Fields) != 1 || he.Fields[0].Path != "/0" {
		t.Fatalf("answer of 300 × 1e999999: %v %+v", err, he)
	}
	if validated {
		t.Fatal("an answer beyond the number bounds reached the validator")
	}
	for answer, path := range map[string]string{
		`1e10000000`:                                      "",
		`[` + strings.Repeat("1", 101) + `]`:              "/0",
		strings.Repeat("[", 65) + strings.Repeat("]", 65): strings.Repeat("/0", 64),
		`[{"a":"str","a":1}]`:                             "/0/a",
	} {
		_, err = e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(answer)})
		if !asError(err, &he) || he.Code != hitl.EInvalidResponse || len(he.Fields) != 1 || he.Fields[0].Path != path {
			t.Errorf("answer %.40s: %v, want 422 at %q", answer, err, path)
		}
	}
}

// TestValidationWaitsForASlot: as many answers are validated at once as there are CPUs; the
// next one waits, and one whose caller gives up while it waits is never validated nor stored.
func TestValidationWaitsForASlot(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	slots := runtime.GOMAXPROCS(0)
	ids := make([]int64, slots+1)
	for i := range ids {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "n?", ResponseSchema: json.RawMessage(`{"type":"integer"}`)}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = inq.ID
	}
	entered, hold := make(chan int64, len(ids)), make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	defer release()
	engine.SetValidating(e, func(inq *hitl.Inquiry) {
		entered <- inq.ID
		<-hold
	})
	answered := make(chan error, slots)
	for _, id := range ids[:slots] {
		go func() {
			_, err := e.Respond(ctx, human, id, &hitl.ResponseRequest{Response: json.RawMessage(`7`)})
			answered <- err
		}()
	}
	for range slots {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("an answer was never validated")
		}
	}
	// Every slot is taken: the next answer waits, until its caller gives up.
	gaveUp, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	waited := make(chan error, 1)
	go func() {
		_, err := e.Respond(gaveUp, human, ids[slots], &hitl.ResponseRequest{Response: json.RawMessage(`8`)})
		waited <- err
	}()
	select {
	case id := <-entered:
		t.Fatalf("inquiry %d was validated while every slot was taken", id)
	case err := <-waited:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("the answer whose caller gave up: %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer neither waited for a slot nor gave up")
	}
	release()
	for range slots {
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
	if got, err := e.Inquiry(ctx, human, ids[slots]); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("the given-up answer was stored: %+v, %v", got, err)
	}
}
