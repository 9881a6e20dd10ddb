package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
)

// A database restored from a backup must never give out a number again that the server the
// backup came from gave out after the backup: clients hold those numbers. An inquiry id given
// out again would be another inquiry under an id an agent waits on, an answer link or a reply
// token signed for the old one would answer the new one, and an event seq given out again
// would make a stream that resumes after it skip events. The backup cannot know how many
// numbers were given out after it, so a restore moves every sequence clients hold numbers of
// (inquiry ids, integer identities, event seqs: hitl.Sequences) to a number that no server
// of this database's line can have reached yet: the time of the restore, counted in
// microseconds since restoreEpoch.
//
// Why no server can have reached it: a server counts from 1, or, after a restore at time T,
// from T's number; and it gives out fewer than one number a microsecond, so by the time of a
// later restore it has given out fewer numbers than microseconds have passed since it began.
// Its numbers all lie below that later restore's. hitl's fastest measured pace is about
// 21,000 events a second (the README's figures), fifty times below a million a second; the
// ids given out stay below 2⁵³, which JavaScript clients read exactly, until the 2310s.
//
// The same rule holds however backups and restores follow one another: a backup restored
// twice, an older backup restored after a newer one (each restore is later than any before
// it, so its number is above all of theirs). What it needs is a clock that does not go back
// from one machine to the next: a restore refuses when its clock is behind the backup's newest
// event, or when a sequence already stands beyond the number the clock gives.

// restoreEpoch is before any hitl ran: the first commit of hitl is of 2026-11-22.
var restoreEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// restoreFloor is the number every sequence moves to at a restore at now.
func restoreFloor(now time.Time) int64 { return now.Sub(restoreEpoch).Microseconds() }

// Restore moves the sequences of a database restored from a backup past every number the
// server it came from may have given out after the backup (see above), and records it in an
// audit.restored event. It removes the backup's mark, if any, so that the first start does not
// move them again. hitl restore calls it, on a database no server runs on.
func (e *Engine) Restore(ctx context.Context, actor string) (*hitl.AuditRestore, error) {
	return e.restore(ctx, actor, false)
}

// FinishRestore runs Restore when the database is a backup that hitl backup marked, and
// returns what it did (nil when the database is no backup): a server started on a restored
// copy, without hitl restore, moves its sequences before anything else writes to it.
func (e *Engine) FinishRestore(ctx context.Context) (*hitl.AuditRestore, error) {
	done, err := e.restore(ctx, "hitl serve", true)
	if done != nil {
		e.log.Warn("this database is a restored backup: its inquiry ids, integer identities and event seqs go on past every number the server it came from may have given out since",
			"backup_taken_at", done.BackupTakenAt, "next_inquiry_id", done.NextInquiryID, "next_seq", done.Skipped.To+1)
	}
	return done, err
}

// restore moves the sequences, or, when markedOnly, only those of a marked backup.
func (e *Engine) restore(ctx context.Context, actor string, markedOnly bool) (*hitl.AuditRestore, error) {
	var done *hitl.AuditRestore
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		done = nil
		taken, err := tx.TakeBackupMark()
		if err != nil || (markedOnly && taken.IsZero()) {
			return err
		}
		done, err = e.moveSequences(tx, taken, actor)
		return err
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

func (e *Engine) moveSequences(tx hitl.Tx, taken time.Time, actor string) (*hitl.AuditRestore, error) {
	now := e.clock()
	cur, err := tx.Sequences()
	if err != nil {
		return nil, err
	}
	newest := cur.EventTime
	if taken.After(newest) {
		newest = taken
	}
	if now.Before(newest) {
		return nil, hitl.Errorf(hitl.EConflict, "the clock reads %s, before the backup's newest event (%s): a restore numbers what it gives out by the time, so set the clock right first",
			now.Format(time.RFC3339), newest.Format(time.RFC3339))
	}
	floor := restoreFloor(now)
	next := hitl.Sequences{Inquiry: floor, Identity: floor, Event: floor}
	if what, given := beyond(cur, floor); what != "" {
		return nil, hitl.Errorf(hitl.EConflict, "the clock reads %s, yet this database gave out %s %d, which a restore at this time would give out again: is the clock behind the one of the server that wrote it?",
			now.Format(time.RFC3339), what, given)
	}
	r := &hitl.AuditRestore{Skipped: hitl.SeqRange{From: cur.Event + 1, To: floor - 1}, NextInquiryID: floor, NextIdentity: floor}
	if !taken.IsZero() {
		at := taken.UTC()
		r.BackupTakenAt = &at
	}
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	ev := &hitl.Event{ID: uuid.NewString(), Type: hitl.EventAuditRestored, Time: now, Actor: actor, Data: data}
	if err := tx.MoveSequences(next, ev); err != nil {
		return nil, fmt.Errorf("move the sequences: %w", err)
	}
	return r, nil
}

// beyond names the first sequence of cur that stands at or beyond floor, with where it stands
// ("" when none does): moving it to floor would move it back.
func beyond(cur hitl.Sequences, floor int64) (what string, given int64) {
	for _, q := range []struct {
		what  string
		given int64
	}{{"inquiry id", cur.Inquiry}, {"integer identity", cur.Identity}, {"event seq", cur.Event}} {
		if q.given >= floor {
			return q.what, q.given
		}
	}
	return "", 0
}
