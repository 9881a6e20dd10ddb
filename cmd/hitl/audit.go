package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/internal/server"
)

func auditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Verify and export the tamper-evident event log",
		Long: `Every event hitl stores carries hash = SHA-256(previous hash ‖ the event's canonical JSON),
so that changing, removing or reordering a stored event breaks the chain from there on. These
commands read the database directly (--db, as 'hitl serve' takes it; a server may be running on
it). See the README, section Audit.`,
	}
	cmd.AddCommand(auditVerifyCmd(), auditExportCmd())
	return cmd
}

// openExistingDB opens the database of --db, for the commands that read or mend it offline,
// refusing to create a SQLite file that is not there.
func openExistingDB(ctx context.Context, db string) (hitl.Store, error) {
	if !server.IsPostgres(db) {
		if _, err := os.Stat(db); err != nil {
			return nil, usagef("--db %s: no database there", db)
		}
	}
	if err := server.CheckSchema(ctx, db); err != nil {
		if hitl.ErrorCode(err) == hitl.EInvalid {
			return nil, usagef("--db: %s", hitl.ErrorMessage(err))
		}
		return nil, err
	}
	return server.OpenStore(ctx, db, nil)
}

func auditVerifyCmd() *cobra.Command {
	var (
		db, head string
		seq      int64
	)
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute the audit chain and check the stored state against it; exit 1 naming the first thing that is wrong",
		Long: `Recompute the hash of every event in seq order, reading the log a page at a time, and compare
each with the hash stored with it. Exit 0 with "verified N events through seq S, head HASH", or 1
naming the first seq whose content, order or presence is wrong: an edited event, a deleted one,
two swapped. Gaps that retention left (hitl purge, --retain-resolved) are accepted where its
audit.checkpoint events say they removed those seqs, and the chain goes on from the hashes
they recorded; so is the gap a restore leaves (hitl restore) just before its audit.restored
event, which names the seqs it skipped, and the chain goes on from the event before them.

Then compare what the API serves of every inquiry and session, its stored row, with the state
its newest event carries (every event of an inquiry or a session holds it whole, as it became),
a page at a time; an inquiry's columns beside its document (status, asker, session, responder,
deadline...) and its rows of assignees and metadata with that document; and what no change
alters after an inquiry's creation (its prompt, asker, options...; its assignees and deadline
as its chain's step or an escalation make them) with its inquiry.created event, a session's
owner with its first event. Say "verified the stored state of N inquiries and M sessions
against their events"; or exit 1 naming the first inquiry or session that differs and how, as
in "inquiry 12: the stored answer is "yes" but its events say "no" (event 345)" or "inquiry 3:
its status column says cancelled but its events say pending (event 7)": a row edited, added or
removed behind hitl's back.

On its own the chain cannot show that events were cut off the end, nor a log rewritten by
someone who recomputed every hash after an edit. A head kept elsewhere can: give the seq and
hash of a head published earlier (GET /v1/audit/head) with --seq and --head, and verify also
proves that the log still reaches that seq with that hash.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var pub audit.Published
			if seq < 0 {
				return usagef("--seq %d: a seq is 1 or more", seq)
			}
			pub.Seq = seq
			if head != "" {
				h, err := audit.ParseHash(head)
				if err != nil {
					return usagef("--head: %v", err)
				}
				pub.Hash = &h
			}
			st, err := openExistingDB(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			// The stored state is compared beside the chain (the two read different tables, and a
			// core each), and even when the chain breaks: what the API serves may be wrong in
			// other places than the break.
			var (
				states    sync.WaitGroup
				statesSay string
				statesErr error
			)
			states.Go(func() { statesSay, statesErr = verifyStates(cmd.Context(), st) })
			v, err := audit.VerifyLog(cmd.Context(), st, pub)
			states.Wait()
			var b *audit.Break
			switch {
			case errors.As(err, &b):
				err = fmt.Errorf("the audit chain breaks at %w (the %d events before it verified)", b, v.Events)
			case err != nil:
				return err
			default:
				removed := ""
				if v.Removed > 0 {
					removed = fmt.Sprintf(" (and %d removed by retention, which its checkpoints account for)", v.Removed)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "verified %d events through seq %d%s, head %s\n", v.Events, v.Seq, removed, v.Hash)
			}
			fmt.Fprint(cmd.OutOrStdout(), statesSay)
			return errors.Join(err, statesErr)
		},
	}
	cmd.Flags().StringVar(&db, "db", envOr("HITL_DB", server.DefaultDB()), "SQLite database file, or postgres:// URL (HITL_DB)")
	cmd.Flags().Int64Var(&seq, "seq", 0, "the seq of a head published earlier: the log must still reach it")
	cmd.Flags().StringVar(&head, "head", "", "the hash of a head published earlier (64 hex digits): the log must hold it (at --seq, when given)")
	return cmd
}

// verifyStates compares every inquiry's and session's stored state with its events, and says
// how many it verified, or returns an error naming the first that differs and how many more do.
func verifyStates(ctx context.Context, st hitl.Store) (string, error) {
	var (
		first *audit.Mismatch
		more  int
	)
	n, err := audit.VerifyStates(ctx, st, func(m *audit.Mismatch) error {
		if first == nil {
			first = m
		} else {
			more++
		}
		return nil
	})
	switch {
	case err != nil:
		return "", fmt.Errorf("reading the stored inquiries and sessions: %w", err)
	case more == 1:
		return "", fmt.Errorf("the stored state differs from the audit log: %w (and 1 more inquiry or session differs)", first)
	case more > 1:
		return "", fmt.Errorf("the stored state differs from the audit log: %w (and %d more inquiries or sessions differ)", first, more)
	case first != nil:
		return "", fmt.Errorf("the stored state differs from the audit log: %w", first)
	}
	return fmt.Sprintf("verified the stored state of %d inquiries and %d sessions against their events\n", n.Inquiries, n.Sessions), nil
}

func auditExportCmd() *cobra.Command {
	var (
		db    string
		after int64
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the event log with its hashes as JSON lines",
		Long: `Write every event after seq --after to stdout, one JSON object a line, in seq order: the event's
canonical JSON (actor, data, id, inquiry_id, seq, session, time, type; data exactly as stored)
with "hash" added at the end. Removing the line's final ,"hash":"…" member gives back the
canonical JSON, so anyone can recompute hash = SHA-256(previous hash ‖ canonical JSON) from the
export alone: the previous hash of the first line is the hash of seq --after (32 zero bytes
for --after 0; after a gap retention left, the hash the audit.checkpoint event recorded for
the run that ends just before it; after a restore's gap, the hash of the event before the gap). Reads the database directly, like verify: no role applies, whoever can read the database can run it.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if after < 0 {
				return usagef("--after %d: a seq is 0 or more", after)
			}
			st, err := openExistingDB(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer st.Close()
			out := bufio.NewWriter(cmd.OutOrStdout())
			err = st.ChainedEvents(cmd.Context(), after, func(ev *hitl.Event, hash []byte) error {
				line := audit.Canonicalize(ev).Bytes(ev.Seq)
				line = fmt.Appendf(line[:len(line)-1], `,"hash":"%x"}`+"\n", hash)
				_, err := out.Write(line)
				return err
			})
			return errors.Join(err, out.Flush())
		},
	}
	cmd.Flags().StringVar(&db, "db", envOr("HITL_DB", server.DefaultDB()), "SQLite database file, or postgres:// URL (HITL_DB)")
	cmd.Flags().Int64Var(&after, "after", 0, "export the events after this seq")
	return cmd
}
