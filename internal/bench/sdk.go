package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// SDKWake compares the clients' wake latency on one server in one run: SDKWaiters questions
// are parked through a client, then answered one by one by the same Go client, and each
// latency runs from the answer being sent to that client's wait returning. Go waits with its
// long polls (Client.Wait, what Ask does) and with a Waiter; TypeScript with ask() and with
// ask({ waiter }), in a Node process of its own (clients/typescript/bench/wake.mjs).
type SDKWake struct {
	Parked           int      `json:"parked"`
	Go               Latency  `json:"go"`
	GoWaiter         Latency  `json:"go_waiter"`
	TypeScript       *Latency `json:"typescript,omitempty"`
	TypeScriptWaiter *Latency `json:"typescript_waiter,omitempty"`
	// TypeScriptSkipped says why the TypeScript figures are missing (no Node, no build).
	TypeScriptSkipped string `json:"typescript_skipped,omitempty"`
}

// TypeScriptWakeScript is the TypeScript client's side of SDKWake, relative to its directory.
const TypeScriptWakeScript = "bench/wake.mjs"

// TypeScriptClientReady tells whether dir holds the TypeScript client built (its dist/) and
// Node to run it, or says why not: the note a run without its figures carries.
func TypeScriptClientReady(dir string) (skipped string) {
	if dir == "" {
		return "no TypeScript client given (hitl bench --typescript-client clients/typescript)"
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not on PATH"
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
		return fmt.Sprintf("the TypeScript client in %s is not built: run npm ci (or npm run build) there", dir)
	}
	return ""
}

func (r *run) sdkWake(ctx context.Context) (*SDKWake, error) {
	n := r.o.SDKWaiters
	out := &SDKWake{Parked: n}
	var err error
	r.say("SDK wake latency: %d questions parked through the Go client, answered one by one ...", n)
	if out.Go, err = r.wakeOf(ctx, n, false); err != nil {
		return nil, err
	}
	r.say("SDK wake latency: %d parked through one Go Waiter ...", n)
	if out.GoWaiter, err = r.wakeOf(ctx, n, true); err != nil {
		return nil, err
	}
	if out.TypeScriptSkipped = TypeScriptClientReady(r.o.TypeScriptClient); out.TypeScriptSkipped != "" {
		return out, nil
	}
	for _, mode := range []string{"ask", "waiter"} {
		r.say("SDK wake latency: %d parked through the TypeScript client's %s ...", n, mode)
		lat, err := r.typeScriptWake(ctx, n, mode)
		if err != nil {
			return nil, fmt.Errorf("the TypeScript client's wake latency (%s): %w", mode, err)
		}
		if mode == "ask" {
			out.TypeScript = &lat
		} else {
			out.TypeScriptWaiter = &lat
		}
	}
	return out, nil
}

// wakeOf parks n waits through the Go client, with long polls or one Waiter, and answers them.
func (r *run) wakeOf(ctx context.Context, n int, multiplexed bool) (Latency, error) {
	ids, err := r.create(ctx, n, func(int) *hitl.InquiryRequest { return &hitl.InquiryRequest{Prompt: "Go?"} })
	if err != nil {
		return Latency{}, err
	}
	var parked []chan returned
	if multiplexed {
		w := r.agent.NewWaiter()
		defer w.Close()
		before, err := r.metric(ctx, "hitl_waiters")
		if err != nil {
			return Latency{}, err
		}
		parked = make([]chan returned, len(ids))
		for i, id := range ids {
			parked[i] = make(chan returned, 1)
			go func() {
				inq, err := w.Wait(ctx, id)
				parked[i] <- returned{time.Now(), inq, err}
			}()
		}
		if err := r.parkedBeyond(ctx, int(before)+n); err != nil {
			return Latency{}, err
		}
	} else if parked, err = r.park(ctx, ids, 2*time.Minute); err != nil {
		return Latency{}, err
	}
	return r.wakeOfParked(ctx, r.human, ids, parked)
}

// typeScriptWake runs the TypeScript client's script: it asks n questions and prints their
// ids, then, once every ask() has returned, when each returned (Unix ms, from the same clock
// as time.Now here). The answers are sent from here, by the same Go client as for Go's figure.
func (r *run) typeScriptWake(ctx context.Context, n int, mode string) (Latency, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	before, err := r.metric(ctx, "hitl_waiters")
	if err != nil {
		return Latency{}, err
	}
	cmd := exec.CommandContext(ctx, "node", TypeScriptWakeScript)
	cmd.Dir = r.o.TypeScriptClient
	cmd.Env = append(os.Environ(), "HITL_URL="+r.url, "HITL_TOKEN="+r.agentToken, "WAITERS="+strconv.Itoa(n), "MODE="+mode)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Latency{}, err
	}
	if err := cmd.Start(); err != nil {
		return Latency{}, err
	}
	defer cmd.Wait() //nolint:errcheck // the outcome that matters is read from its output
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	var asked struct {
		IDs []int64 `json:"ids"`
	}
	if err := readLine(lines, &asked); err != nil {
		return Latency{}, err
	}
	if len(asked.IDs) != n {
		return Latency{}, fmt.Errorf("the script asked %d questions, not %d", len(asked.IDs), n)
	}
	if err := r.parkedBeyond(ctx, int(before)+n); err != nil {
		return Latency{}, err
	}
	sent, err := r.answerOneByOne(ctx, r.human, asked.IDs)
	if err != nil {
		return Latency{}, err
	}
	var done struct {
		Returned map[string]float64 `json:"returned_unix_ms"`
	}
	if err := readLine(lines, &done); err != nil {
		return Latency{}, err
	}
	lat := make([]time.Duration, len(asked.IDs))
	for i, id := range asked.IDs {
		ms, ok := done.Returned[strconv.FormatInt(id, 10)]
		if !ok {
			return Latency{}, fmt.Errorf("the script did not say when the ask of %d returned", id)
		}
		lat[i] = time.UnixMicro(int64(ms * 1000)).Sub(sent[i])
	}
	return summarize(lat), nil
}

func readLine(lines *bufio.Scanner, v any) error {
	if !lines.Scan() {
		if err := lines.Err(); err != nil {
			return err
		}
		return errors.New("the script ended early (its error is above)")
	}
	return json.Unmarshal([]byte(strings.TrimSpace(lines.Text())), v)
}

// parkedBeyond waits until the server holds at least n waits (hitl_waiters).
func (r *run) parkedBeyond(ctx context.Context, n int) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		parked, err := r.metric(ctx, "hitl_waiters")
		if err != nil {
			return err
		}
		if int(parked) >= r.held+n {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("only some of the waits were parked within 60 s")
}
