package outbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/outbox"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// onePerEvent plans one callback per event, named after it, as the engine names none: two
// nodes planning the same event plan the same delivery.
func onePerEvent(context.Context) (outbox.PlanPage, error) {
	return func(_ context.Context, evs []*hitl.Event) ([]*hitl.Delivery, error) {
		var out []*hitl.Delivery
		for _, ev := range evs {
			now := time.Now()
			out = append(out, &hitl.Delivery{ID: "msg_" + ev.ID, Kind: hitl.DeliveryInquiryCallback, URL: "https://agent.example/cb",
				Target: "agent.example", EventSeq: ev.Seq, EventID: ev.ID, EventType: ev.Type, Payload: json.RawMessage(`{}`),
				Status: hitl.DeliveryPending, NextAttemptAt: &now, CreatedAt: now, RetryFrom: now})
		}
		return out, nil
	}, nil
}

// TestEachEventIsDeliveredOnceAcrossNodes: two outboxes read one log; each event becomes one
// delivery, and the cursor ends past the last event.
func TestEachEventIsDeliveredOnceAcrossNodes(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 1200 // more than two pages
	evs := make([]*hitl.Event, n)
	err = st.Update(ctx, func(tx hitl.Tx) error {
		for i := range evs {
			evs[i] = &hitl.Event{ID: fmt.Sprintf("ev%d", i), Type: hitl.EventKeyCreated, Time: time.Now(), Actor: "test", Data: json.RawMessage(`{}`)}
			if err := tx.AppendEvent(evs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	last := evs[n-1].Seq // seq order is commit order, and the events commit together in order
	nodes := []*outbox.Outbox{outbox.New(st, onePerEvent, slog.New(slog.DiscardHandler)), outbox.New(st, onePerEvent, slog.New(slog.DiscardHandler))}
	for _, o := range nodes {
		o.Start(ctx)
		o.Kick()
	}
	testserver.Eventually(t, 10*time.Second, "the cursor past the last event", func() bool {
		seq, err := st.OutboxCursor(ctx)
		return err == nil && seq == last
	})
	for _, o := range nodes {
		if err := o.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ds, _, err := st.Deliveries(ctx, hitl.DeliveryFilter{Page: hitl.Page{Limit: 2 * n}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != n {
		t.Fatalf("%d deliveries of %d events", len(ds), n)
	}
}
