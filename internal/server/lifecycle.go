package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// undoStack holds what a start has opened so far, so that a start that fails part way closes
// it all, newest first, with one call wherever it stops.
type undoStack []func()

func (u *undoStack) push(f func()) { *u = append(*u, f) }

// unwind undoes everything pushed, newest first.
func (u *undoStack) unwind() {
	for _, f := range slices.Backward(*u) {
		f()
	}
	*u = nil
}

// parts are the pieces of a running server that run until told to stop: the HTTP server, the
// email reply listener, the delivery dispatcher, the brokers. They run together; the first
// to fail stops them all, and a stop waits for each no longer than its context allows.
type parts struct {
	mu      sync.Mutex
	running map[string]int // the parts still running, by name
	failed  chan struct{}  // closed when the first part fails
	once    sync.Once
	errs    []error
	done    sync.WaitGroup
}

func newParts() *parts {
	return &parts{running: map[string]int{}, failed: make(chan struct{})}
}

// run starts one part. It runs until it returns; an error from it stops the server.
func (p *parts) run(name string, f func() error) {
	p.mu.Lock()
	p.running[name]++
	p.mu.Unlock()
	p.done.Go(func() {
		err := f()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.running[name]--; p.running[name] == 0 {
			delete(p.running, name)
		}
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("%s: %w", name, err))
			p.once.Do(func() { close(p.failed) })
		}
	})
}

// Failed is closed when a part has failed.
func (p *parts) Failed() <-chan struct{} { return p.failed }

// wait waits for every part to return, or for ctx to end; then it returns the parts' errors,
// and names the parts that were still running.
func (p *parts) wait(ctx context.Context) error {
	stopped := make(chan struct{})
	go func() { p.done.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := slices.Clone(p.errs)
	if len(p.running) > 0 {
		names := slices.Sorted(maps.Keys(p.running))
		errs = append(errs, fmt.Errorf("%s did not stop within the shutdown timeout", strings.Join(names, ", ")))
	}
	return errors.Join(errs...)
}
