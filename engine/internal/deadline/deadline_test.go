package deadline

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
)

// BenchmarkDeadlinesMemory reports the heap that a million pending deadlines hold in the
// timer structure, per deadline (the target is at most 160 bytes of the server's RSS), added
// one by one and, as start-up loads them, all at once.
func BenchmarkDeadlinesMemory(b *testing.B) {
	const n = 1_000_000
	start := time.Now().Add(time.Hour)
	at := func(i int) time.Time { return start.Add(time.Duration(i*7919%n) * time.Millisecond) }
	b.Run("Add", func(b *testing.B) {
		for range b.N {
			d := New(clock.Real, func(context.Context, []int64) {})
			before := heapInUse()
			for i := range n {
				d.Add(int64(i+1), at(i))
			}
			after := heapInUse()
			runtime.KeepAlive(d)
			b.ReportMetric(float64(after-before)/n, "bytes/deadline")
		}
	})
	b.Run("AddAll", func(b *testing.B) {
		for range b.N {
			ds := make([]hitl.Deadline, n)
			for i := range ds {
				ds[i] = hitl.Deadline{InquiryID: int64(i + 1), At: at(i)}
			}
			d := New(clock.Real, func(context.Context, []int64) {})
			before := heapInUse()
			d.AddAll(ds)
			ds = nil
			after := heapInUse()
			runtime.KeepAlive(d)
			b.ReportMetric(float64(after-before)/n, "bytes/deadline")
		}
	})
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkDeadlinesLateness loads a million deadlines an hour away and ten thousand within
// two seconds, and reports how late the timer hands the near ones to expire (p99; the
// target for a timeout, commit included, is 5 ms). expire here only notes the time.
func BenchmarkDeadlinesLateness(b *testing.B) {
	const far, near = 1_000_000, 10_000
	for range b.N {
		var (
			mu   sync.Mutex
			late []time.Duration
			ats  = make(map[int64]time.Time, near)
			done = make(chan struct{})
		)
		d := New(clock.Real, func(_ context.Context, ids []int64) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			for _, id := range ids {
				late = append(late, now.Sub(ats[id]))
			}
			if len(late) == near {
				close(done)
			}
		})
		start := time.Now()
		for i := range far {
			d.Add(int64(near+i+1), start.Add(time.Hour+time.Duration(i)*time.Millisecond))
		}
		start = time.Now().Add(100 * time.Millisecond)
		for i := range near {
			at := start.Add(time.Duration(i*7919%near) * 2 * time.Second / near)
			ats[int64(i+1)] = at
			d.Add(int64(i+1), at)
		}
		d.Start(context.Background())
		<-done
		if err := d.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
		slices.Sort(late)
		b.ReportMetric(float64(late[len(late)*99/100].Microseconds())/1000, "p99-late-ms")
		b.ReportMetric(float64(late[len(late)-1].Microseconds())/1000, "max-late-ms")
	}
}

// TestDeadlinesOrder adds, moves and removes deadlines at random and checks that due hands
// out exactly those that have passed, earliest first, each once.
func TestDeadlinesOrder(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	c := clock.NewManual(base)
	d := New(c, nil)
	want := map[int64]time.Time{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20_000 {
		id := int64(r.IntN(500))
		switch r.IntN(5) {
		case 0:
			d.Remove(id)
			delete(want, id)
		case 1: // several at once, some of them held already
			var ds []hitl.Deadline
			for range r.IntN(20) {
				ds = append(ds, hitl.Deadline{InquiryID: int64(r.IntN(500)), At: base.Add(time.Duration(r.IntN(10_000)) * time.Millisecond)})
			}
			d.AddAll(ds)
			for _, dl := range ds {
				want[dl.InquiryID] = dl.At
			}
		default:
			at := base.Add(time.Duration(r.IntN(10_000)) * time.Millisecond)
			d.Add(id, at)
			want[id] = at
		}
		if step%100 != 0 {
			continue
		}
		now := base.Add(time.Duration(step/2) * time.Millisecond)
		c.Set(now)
		var got []int64
		for {
			ids, _ := d.due()
			got = append(got, ids...)
			if len(ids) < maxBatch {
				break
			}
		}
		for i, id := range got {
			at, ok := want[id]
			if !ok || at.After(now) {
				t.Fatalf("step %d: %d due at %v (pending %v) with the clock at %v", step, id, at, ok, now)
			}
			if i > 0 && at.Before(want[got[i-1]]) {
				t.Fatalf("step %d: %d (at %v) after %d (at %v)", step, id, at, got[i-1], want[got[i-1]])
			}
		}
		for _, id := range got {
			delete(want, id)
		}
		for id, at := range want {
			if !at.After(now) {
				t.Fatalf("step %d: %d due at %v not handed out at %v", step, id, at, now)
			}
		}
		if len(d.h) != len(want) || len(d.at) != len(want) {
			t.Fatalf("step %d: heap %d, index %d, pending %d", step, len(d.h), len(d.at), len(want))
		}
	}
}

// TestDeadlinesBeyondNanoseconds keeps a deadline past 2262 and one before 1678 in order.
func TestDeadlinesBeyondNanoseconds(t *testing.T) {
	now := time.Now()
	c := clock.NewManual(now)
	d := New(c, nil)
	d.Add(1, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	d.Add(2, now.Add(time.Minute))
	d.Add(3, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
	ids, next := d.due()
	if wait := next.Sub(now); !slices.Equal(ids, []int64{3}) || wait != time.Minute {
		t.Fatalf("due = %v, wait %v", ids, wait)
	}
	now = now.Add(time.Hour)
	c.Set(now)
	if ids, next := d.due(); !slices.Equal(ids, []int64{2}) || next.Sub(now) != time.Hour {
		t.Fatalf("an hour later: due = %v, wait %v", ids, next.Sub(now))
	}
}

// TestStopIsBoundedByItsContext: a firing that does not return holds Stop no longer than
// Stop's context, and Stop says so; once it returns, Stop succeeds.
func TestStopIsBoundedByItsContext(t *testing.T) {
	start := time.Now()
	c := clock.NewManual(start)
	fired, release := make(chan struct{}), make(chan struct{})
	q := New(c, func(context.Context, []int64) {
		close(fired)
		<-release
	})
	q.Add(1, start.Add(time.Minute))
	q.Start(context.Background())
	c.Advance(time.Minute)
	<-fired
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := q.Stop(expired); err == nil {
		t.Fatal("Stop returned nil with a firing in progress")
	}
	close(release)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}
