package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (hitl.Store, error) {
		return postgres.Open(context.Background(), pgtest.Schema(t), nil)
	})
}

func TestNodesMigratingTogether(t *testing.T) {
	url := pgtest.Schema(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(context.Background(), url, nil)
			if err == nil {
				s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatalf("a node starting beside others: %v", err)
		}
	}
}

func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	if _, err := postgres.Open(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=2", nil); err == nil {
		t.Fatal("opening an unreachable database succeeded")
	}
}

// TestNodesNeverClaimTheSameDelivery: two nodes claim from one outbox as fast as they can;
// each delivery goes to exactly one of them, although a row one node claimed and committed
// still looks due in the snapshot the other started from.
func TestNodesNeverClaimTheSameDelivery(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	var nodes []*postgres.Store
	for range 2 {
		s, err := postgres.Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		nodes = append(nodes, s)
	}
	const n = 600
	now := time.Now().UTC()
	err := nodes[0].Update(ctx, func(tx hitl.Tx) error {
		for i := range n {
			err := tx.InsertDelivery(&hitl.Delivery{ID: fmt.Sprintf("msg_%d", i), Kind: hitl.DeliveryInquiryCallback,
				URL: "https://example.com/", Target: fmt.Sprintf("host%d", i%3), EventSeq: int64(i), EventID: fmt.Sprint(i),
				EventType: hitl.EventInquiryCreated, Payload: json.RawMessage(`{}`), Status: hitl.DeliveryPending,
				NextAttemptAt: &now, CreatedAt: now, RetryFrom: now})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		claimed = map[string]int{}
		wg      sync.WaitGroup
	)
	for _, s := range nodes {
		for range 4 { // several claims in flight per node, as its dispatcher's do in one commit
			wg.Go(func() {
				for {
					var got []*hitl.Delivery
					err := s.Update(ctx, func(tx hitl.Tx) (err error) {
						got, err = tx.ClaimDeliveries(hitl.Claim{Now: time.Now(), LeaseUntil: time.Now().Add(time.Minute), Limit: 7, PerTarget: 5})
						return err
					})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, d := range got {
						claimed[d.ID]++
					}
					done := len(claimed) == n
					mu.Unlock()
					if done {
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if len(claimed) != n {
		t.Fatalf("%d of %d deliveries claimed", len(claimed), n)
	}
	for id, k := range claimed {
		if k != 1 {
			t.Fatalf("delivery %s claimed %d times", id, k)
		}
	}
}

func TestTamperedLogIsFound(t *testing.T) {
	storetest.RunTamper(t, openTampered)
}

func TestTamperedStateIsFound(t *testing.T) {
	storetest.RunStateTamper(t, openTampered)
}

// openTampered opens a new store with a Tamperer of its database.
func openTampered(t *testing.T) (hitl.Store, storetest.Tamperer) {
	url := pgtest.Schema(t)
	s, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return s, storetest.SQLTamperer(func(stmt string, args ...any) error {
		_, err := pool.Exec(context.Background(), stmt, args...)
		return err
	}, func(n int) string { return "$" + strconv.Itoa(n) })
}

// TestSearchIndexUpdatesAtEachInsert: the prompts' trigram index (migration 32) is there, and
// without GIN's pending list, whose merge inside an insert's commit stalled the node's writer.
func TestSearchIndexUpdatesAtEachInsert(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	pool := migratedPool(t, url, nil)
	var options []string
	err := pool.QueryRow(ctx, `SELECT COALESCE(c.reloptions, '{}') FROM pg_class c
		WHERE c.relname = 'inquiries_prompt_trigrams' AND c.relnamespace = current_schema()::regnamespace`).Scan(&options)
	if err != nil {
		t.Fatalf("the trigram index: %v", err)
	}
	if !slices.Contains(options, "fastupdate=off") {
		t.Fatalf("the trigram index's options are %q, want fastupdate=off", options)
	}
}

// TestLogReadsArePlannedForTheirSeq: the reads of the log after a seq are not prepared, so
// PostgreSQL plans each for its seq and the table as it is, instead of keeping the plan it
// made when the table was nearly empty (a sequential scan: 20–200 ms at 40,000 events, while
// no ANALYZE came to replace it). Other reads stay prepared.
func TestLogReadsArePlannedForTheirSeq(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	migrated, err := postgres.Open(ctx, url, nil) // a migration reads the log through database/sql, prepared
	if err != nil {
		t.Fatal(err)
	}
	migrated.Close()
	s, err := postgres.Open(ctx, url+"&pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 7 { // a prepared statement's plan turns generic after its fifth run
		if _, err := s.Events(ctx, hitl.EventFilter{After: 0, Limit: 1000}); err != nil {
			t.Fatal(err)
		}
		if err := s.ChainedEvents(ctx, 0, func(*hitl.Event, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Keys(ctx); err != nil {
			t.Fatal(err)
		}
	}
	prepared, err := s.PreparedStatements(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := false
	for _, text := range prepared {
		if strings.Contains(text, "FROM events") {
			t.Fatalf("a read of the log is prepared: %s", text)
		}
		keys = keys || strings.Contains(text, "FROM api_keys")
	}
	if !keys {
		t.Fatalf("the keys' read is not prepared either, so this test sees nothing: %q", prepared)
	}
}

// TestWarnsWhenAutovacuumIsOff: a server whose autovacuum is off never analyzes or vacuums
// hitl's tables, and the node says so when it opens the store (the project's machines run so).
func TestWarnsWhenAutovacuumIsOff(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	var logged bytes.Buffer
	pool := migratedPool(t, url, slog.New(slog.NewTextHandler(&logged, nil)))
	var setting string
	if err := pool.QueryRow(ctx, "SHOW autovacuum").Scan(&setting); err != nil {
		t.Fatal(err)
	}
	if warned := strings.Contains(logged.String(), "autovacuum is off"); warned != (setting == "off") {
		t.Fatalf("autovacuum is %s, and the node logged: %q", setting, logged.String())
	}
}

// migratedPool opens the store at url once (migrating its schema, logging to log), closes it,
// and gives a pool on that schema, for the test to read what the store left there.
func migratedPool(t *testing.T, url string, log *slog.Logger) *pgxpool.Pool {
	t.Helper()
	s, err := postgres.Open(context.Background(), url, log)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
