package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/storetest"
)

// A prompt keeps its NUL in the document, and the prompt column keeps it without.
func TestUpgrades(t *testing.T) {
	storetest.RunUpgrades(t, func(t *testing.T, version int64) storetest.Older {
		url, pool := schemaAt(t, version)
		return olderSchema{pool, url}
	}, true)
}

// olderSchema is a schema that an older hitl left.
type olderSchema struct {
	pool *pgxpool.Pool
	url  string
}

func (o olderSchema) InsertInquiry(inq *hitl.Inquiry, doc []byte) error {
	_, err := o.pool.Exec(context.Background(), `INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
		VALUES ($1, '', 'input', 'agent-a', TRUE, FALSE, $2, $3, $4)`, inq.Status, inq.CreatedAt, inq.UpdatedAt, string(doc))
	return err
}

func (o olderSchema) InsertEvent(ev *hitl.Event) error {
	_, err := o.pool.Exec(context.Background(), "INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
		ev.Seq, ev.ID, ev.Type, ev.Time, ev.InquiryID, nullText(ev.Session), ev.Actor, string(ev.Data))
	return err
}

func (o olderSchema) Open() (hitl.Store, error) {
	o.pool.Close()
	return Open(context.Background(), o.url, nil)
}

// schemaAt is a new schema with the migrations up to version applied, and a pool on it: the
// state of a database that an older hitl left, for a test of the migrations after it.
func schemaAt(t *testing.T, version int64) (string, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	url, drop, err := TempSchema(ctx, baseForTest(t), "hitl_test_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drop() })
	pool, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := migrateTo(ctx, pool, version); err != nil {
		t.Fatal(err)
	}
	return url, pool
}
