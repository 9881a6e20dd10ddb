package engine

import (
	"context"
	"slices"

	"github.com/hitl-dev/hitl"
)

// Pools: assigned_to ["pool:oncall"] hands the inquiry to one member of the group oncall (a
// principal whose key carries it) when it is created: the one with the fewest pending
// inquiries assigned to them by name, ties to the one assigned least recently, then by name.
// The choice is the inquiry's assignee from then on, recorded by an inquiry.assigned event.

// pickFromPool replaces a pool:NAME assignment of a new inquiry by the member it picks.
func (e *Engine) pickFromPool(ctx context.Context, inq *hitl.Inquiry) error {
	if len(inq.AssignedTo) != 1 {
		return nil
	}
	group, ok := hitl.PoolOf(inq.AssignedTo[0])
	if !ok {
		return nil
	}
	members, err := e.groupMembers(ctx)
	if err != nil {
		return err
	}
	candidates := slices.DeleteFunc(slices.Clone(members[group]), func(name string) bool {
		return inq.ExcludeRequester && name == inq.CreatedBy
	})
	if len(candidates) == 0 {
		var bad problems
		bad.add("/assigned_to/0", "pool %s has nobody to pick: no key carries the group %s", group, group)
		return bad.err("invalid inquiry")
	}
	loads, err := e.store.AssigneeLoads(ctx, candidates)
	if err != nil {
		return err
	}
	pick := slices.MinFunc(candidates, func(a, b string) int {
		la, lb := loads[a], loads[b]
		switch {
		case la.Pending != lb.Pending:
			return la.Pending - lb.Pending
		case !la.LastAssignedAt.Equal(lb.LastAssignedAt):
			return la.LastAssignedAt.Compare(lb.LastAssignedAt)
		}
		return 0 // candidates are sorted by name: MinFunc keeps the first
	})
	inq.AssignedTo, inq.Pool = []string{pick}, group
	return nil
}

// assignedEvent records a pool's choice.
func assignedEvent(tx hitl.Tx, inq *hitl.Inquiry) (*hitl.Event, error) {
	return appendInquiryEventWith(tx, hitl.EventInquiryAssigned, inq, struct {
		*hitl.Inquiry
		PoolName string `json:"pool"`
		Assigned string `json:"assigned"`
	}{inq, inq.Pool, inq.AssignedTo[0]}, "system", inq.CreatedAt)
}
