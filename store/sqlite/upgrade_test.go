package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/storetest"
)

func TestUpgrades(t *testing.T) {
	storetest.RunUpgrades(t, func(t *testing.T, version int64) storetest.Older {
		db, path := migratedTo(t, version)
		return olderFile{db, path}
	}, false)
}

// olderFile is a database file that an older hitl left.
type olderFile struct {
	db   *sql.DB
	path string
}

func (o olderFile) InsertInquiry(inq *hitl.Inquiry, doc []byte) error {
	_, err := o.db.Exec(`INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
		VALUES (?, '', 'input', 'agent-a', 1, 0, ?, ?, ?)`, inq.Status, micros(inq.CreatedAt), micros(inq.UpdatedAt), doc)
	return err
}

func (o olderFile) InsertEvent(ev *hitl.Event) error {
	_, err := o.db.Exec("INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		ev.Seq, ev.ID, ev.Type, micros(ev.Time), ev.InquiryID, emptyNull(ev.Session), ev.Actor, string(ev.Data))
	return err
}

func (o olderFile) Open() (hitl.Store, error) {
	o.db.Close()
	return Open(context.Background(), o.path)
}

// migratedTo is a new database file with the migrations up to version applied: the state of
// a database that an older hitl left, for a test of the migrations after it.
func migratedTo(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrations(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db, path
}
