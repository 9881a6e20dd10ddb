package sqlstore

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// StateReads are a store's queries of the stored state of one kind of record (see
// hitl.Store.InquiryStates), each of some keys, which the store passes as the arguments
// Keys makes of them. Stored reads the rows of the keys, the key first and then the columns
// Scan reads; Beside, when there is one, reads the rows of the tables beside them (the key,
// the table, and two values: see hitl.InquiryColumns.AddRow); Events reads EventColumns of
// the first and the newest event of each key, whose key Of is. What names the records in
// errors.
type StateReads[K int64 | string, T hitl.Inquiry | hitl.Session] struct {
	Stored, Beside, Events string
	Keys                   func(keys []K) []any
	Scan                   func(Scanner) (*T, *hitl.InquiryColumns, error)
	Of                     func(ev *hitl.Event) K
	What                   string
}

// ReadStates reads the stored states of keys on db, which a store gives as one snapshot of
// its database (a transaction).
func ReadStates[K int64 | string, T hitl.Inquiry | hitl.Session](ctx context.Context, d *Dialect, db DB, keys []K, r StateReads[K, T]) ([]*hitl.StoredState[K, T], error) {
	if len(keys) == 0 {
		return nil, nil
	}
	args := r.Keys(keys)
	byKey := make(map[K]*hitl.StoredState[K, T], len(keys))
	out := make([]*hitl.StoredState[K, T], len(keys))
	for i, k := range keys {
		out[i] = &hitl.StoredState[K, T]{Key: k}
		byKey[k] = out[i]
	}
	each := func(query, what string, fn func(Scanner) error) error {
		rows, err := db.Query(ctx, query, args...)
		if err != nil {
			return d.Err(err, what)
		}
		return d.Err(Each(rows, fn), what)
	}
	err := each(r.Stored, r.What, func(sc Scanner) error {
		var key K
		v, cols, err := r.Scan(keyed{sc, &key})
		st := byKey[key]
		if st == nil { // the key itself could not be read
			return err
		}
		st.Stored, st.Columns, st.Unreadable = v, cols, err
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r.Beside != "" {
		err := each(r.Beside, r.What, func(sc Scanner) error {
			var (
				key         K
				table, a, b string
			)
			if err := sc.Scan(&key, &table, &a, &b); err != nil {
				return err
			}
			if st := byKey[key]; st != nil {
				st.Columns.AddRow(table, a, b)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err = each(r.Events, "events", func(sc Scanner) error {
		ev, err := d.scanEvent(sc)
		if err != nil {
			return err
		}
		if st := byKey[r.Of(ev)]; st != nil {
			st.AddEvent(ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanSessionState reads a session's stored state: Session.Stored then its counts.
func (d *Dialect) ScanSessionState(sc Scanner) (*hitl.Session, *hitl.InquiryColumns, error) {
	s, _, err := d.scanSession(sc)
	return s, nil, err
}

// keyed scans a row's first column into key and the others into what Scan is given, so that a
// row whose other columns cannot be read still says whose it is (the drivers assign the
// columns in order, and a column that cannot be converted or decoded leaves the rows
// readable).
type keyed struct {
	row Scanner
	key any
}

func (k keyed) Scan(dest ...any) error { return k.row.Scan(append([]any{k.key}, dest...)...) }
