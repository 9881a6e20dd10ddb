package main

import (
	"fmt"

	"github.com/hitl-dev/hitl"
	"github.com/spf13/cobra"
)

// respondSession approves (or rejects) every pending approval of a session assigned to the
// caller, printing one line per inquiry; an error when any was refused, for the exit status.
func respondSession(cmd *cobra.Command, session string, approve bool, comment string) error {
	c, err := connect()
	if err != nil {
		return err
	}
	results, err := c.RespondMany(cmd.Context(), &hitl.BulkResponseRequest{
		Filter:   &hitl.BulkFilter{Session: session, Status: hitl.StatusPending, AssignedTo: "me", RequestType: hitl.RequestApproval},
		Response: hitl.ApprovalAnswer(approve, comment), Comment: comment,
	})
	if err != nil {
		return withFieldErrors(err)
	}
	done := "approved"
	if !approve {
		done = "rejected"
	}
	if len(results) == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "Nothing to answer: no pending approval of session %s is assigned to you.\n", session)
		return nil
	}
	refused := 0
	for _, r := range results {
		switch r.Status {
		case hitl.BulkResponded:
			fmt.Fprintf(cmd.OutOrStdout(), "Inquiry %d %s.\n", r.ID, done)
			continue
		case hitl.BulkVoted:
			fmt.Fprintf(cmd.OutOrStdout(), "Inquiry %d: your vote is recorded; it waits for the others' votes.\n", r.ID)
			continue
		}
		refused++
		fmt.Fprintf(cmd.OutOrStdout(), "Inquiry %d not answered: %s.\n", r.ID, r.Error.Message)
	}
	if refused > 0 {
		return fmt.Errorf("%d of %d inquiries were not answered", refused, len(results))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%d of %d %s.\n", len(results), len(results), done)
	return nil
}

func declineCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:               "decline ID",
		ValidArgsFunction: completeInquiryID,
		Short:             "Decline to answer an inquiry, unless its agent forbade it (role: responder)",
		Long: `Decline to answer an inquiry: the inquiry is cancelled with your reason, the agent's wait
ends with the cancellation, and its session fails with the reason. Every inquiry may be declined
by whoever may answer it, unless its agent set cancellable_by_responder to false.`,
		Example: `  hitl decline 7 --reason "not my team: ask finance"`,
		Args:    exactArgs(1, "an inquiry id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, c, err := inquiryClient(args[0])
			if err != nil {
				return err
			}
			if _, err := c.Decline(cmd.Context(), id, reason); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry %d declined.\n", id)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why you will not answer, for the agent and the record")
	return cmd
}
