package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A part that does not stop does not hold the shutdown past its timeout: the wait ends with
// the time and names it, beside the errors of the parts that failed.
func TestPartsWaitNamesThePartsStillRunning(t *testing.T) {
	p := newParts()
	release := make(chan struct{})
	defer close(release)
	p.run("the stuck part", func() error { <-release; return nil })
	p.run("the quick part", func() error { return nil })
	p.run("the failing part", func() error { return errors.New("port closed") })
	<-p.Failed()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := p.wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "the stuck part did not stop within the shutdown timeout") ||
		!strings.Contains(err.Error(), "the failing part: port closed") || strings.Contains(err.Error(), "the quick part") {
		t.Fatalf("wait: %v; want the failing part's error and the stuck part named", err)
	}
}

// A start that fails part way undoes what it opened, newest first.
func TestUndoStackUnwindsNewestFirst(t *testing.T) {
	var undo undoStack
	var order []string
	for _, name := range []string{"listener", "store", "tracing"} {
		undo.push(func() { order = append(order, name) })
	}
	undo.unwind()
	undo.unwind() // a second unwind has nothing left to undo
	if got := strings.Join(order, ","); got != "tracing,store,listener" {
		t.Fatalf("undone in the order %s", got)
	}
}
