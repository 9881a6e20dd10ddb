package engine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Routing: who hears of an inquiry, by which channel, and why. The outbox reads the event log
// and, beside webhook deliveries, makes one notification per recipient and channel:
//
//   - inquiry.created: a named assignee → that person's channels (those listed, else every
//     channel the person has an address for), and each device on which they turned on web
//     push notifications (engine/webpush.go); group:X → the group's own contact points when it
//     has some by the channels allowed, else each member's (members: the principals whose
//     keys carry group X), and each member's devices; an unassigned inquiry → the server's
//     default destinations, and the devices of everyone who answers.
//     The inquiry narrows the channels with notify and with channel_hint ("email", "slack").
//   - inquiry.reminded → the same recipients, reason reminder (with its number).
//   - inquiry.escalated → the assignees the escalation added, reason escalation.
//   - a person named among those who is away at the event's time (engine/absences.go): their
//     stand-in instead (the first delegate of the chain who is not away), the message saying
//     for whom; the person themself when the stand-in is no person hitl can reach.
//   - inquiry.responded, .timeout, .cancelled → reason resolved, to every recipient an earlier
//     notification went to, so that the channel can update its message or reply in its thread.
//
// Chat webhooks post on the events they subscribed to. Only the channels this server can send
// by (NotifyOptions.Channels) get notifications. A notification's ID is made of the inquiry,
// recipient, channel, address and reason (and the reminder's number): reading the log again
// cannot make a second message.

// NotifyOptions say how this server reaches people.
type NotifyOptions struct {
	// Channels are those this server has a sender for (email, slack, webpush). Chat webhooks are
	// always available.
	Channels []string
	// Defaults are where the notifications of unassigned inquiries go.
	Defaults []hitl.Destination
	// PublicURL is where people reach this server, for the links in messages.
	PublicURL string
}

// notifyEventTypes are the events that may make notifications.
// A promoted inquiry (engine/dedup.go) is told of as a new one.
var notifyEventTypes = append(slices.Clone(chatEventTypes), hitl.EventInquiryPromoted)

// reasonOf is why an event makes a notification.
func reasonOf(typ string) hitl.NotifyReason {
	switch typ {
	case hitl.EventInquiryCreated, hitl.EventInquiryStepCompleted, // a chain's next step: its people are asked now
		hitl.EventInquiryPromoted: // the question that another asker withdrew, still asked
		return hitl.ReasonCreated
	case hitl.EventInquiryReminded:
		return hitl.ReasonReminder
	case hitl.EventInquiryEscalated:
		return hitl.ReasonEscalation
	}
	return hitl.ReasonResolved
}

// recipient is one place one message goes.
type recipient struct {
	name     string // a person, group:NAME, default, or a chat webhook's ID
	display  string
	channel  string
	address  string
	chatKind string
	// linkFor is whom a personal answer link is made for ("" for none).
	linkFor string
	// onBehalfOf is the away person whose message this is, when it goes to their stand-in.
	onBehalfOf string
	// timeZone is the person's, for the times the message shows.
	timeZone string
}

// routing is what this page of the log is routed by: people, groups, their members, rooms.
type routing struct {
	people  map[string]*hitl.Person
	groups  map[string]*hitl.Group
	members map[string][]string
	chats   []*hitl.ChatWebhook
	// absences are every stored absence; away are those that hold at the event being routed
	// (its time, so that reading the log again routes it the same way).
	absences []*hitl.Absence
	away     delegations
	// devices are the people's web push subscriptions, by person; answerers those of them
	// whose keys let them answer (the responder or admin role), who hear of unassigned inquiries.
	devices   map[string][]*hitl.PushSubscription
	answerers []string
}

// loadRouting reads the people, groups, members and absences when this server has channels to
// reach them.
func (e *Engine) loadRouting(ctx context.Context, chats []*hitl.ChatWebhook) (*routing, error) {
	r := &routing{people: map[string]*hitl.Person{}, groups: map[string]*hitl.Group{}, members: map[string][]string{}, chats: chats,
		devices: map[string][]*hitl.PushSubscription{}}
	if len(e.notify.Channels) == 0 {
		return r, nil
	}
	if slices.Contains(e.notify.Channels, hitl.ChannelWebPush) {
		devices, err := e.store.WebPushSubscriptions(ctx, nil)
		if err != nil {
			return nil, err
		}
		for _, d := range devices {
			r.devices[d.Person] = append(r.devices[d.Person], d)
		}
		if len(devices) > 0 {
			keys, err := e.store.Keys(ctx)
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				if k.RevokedAt == nil && r.devices[k.Name] != nil && CanAnswer(&hitl.Principal{Roles: k.Roles}) && !slices.Contains(r.answerers, k.Name) {
					r.answerers = append(r.answerers, k.Name)
				}
			}
			slices.Sort(r.answerers)
		}
	}
	people, err := e.store.People(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range people {
		r.people[p.Name] = p
	}
	groups, err := e.store.Groups(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		r.groups[g.Name] = g
	}
	if r.members, err = e.groupMembers(ctx); err != nil {
		return nil, err
	}
	if r.absences, err = e.absenceList(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// recipientsOf lists whom the assignees stand for, one per channel and address.
func (e *Engine) recipientsOf(r *routing, inq *hitl.Inquiry, assignees []string) []recipient {
	allowed := func(channel string) bool {
		if !slices.Contains(e.notify.Channels, channel) || (len(inq.Notify) > 0 && !slices.Contains(inq.Notify, channel)) {
			return false
		}
		hint := strings.ToLower(inq.ChannelHint)
		return !slices.Contains(hitl.PersonChannels, hint) || hint == channel
	}
	var out []recipient
	add := func(rc recipient) {
		if rc.address == "" || !allowed(rc.channel) || slices.ContainsFunc(out, func(o recipient) bool {
			return o.channel == rc.channel && o.address == rc.address
		}) {
			return
		}
		out = append(out, rc)
	}
	reach := func(p *hitl.Person, onBehalfOf string) {
		channels := p.Channels
		if len(channels) == 0 {
			channels = hitl.PersonChannels
		}
		display := cmp.Or(p.DisplayName, p.Name)
		for _, c := range channels {
			add(recipient{name: p.Name, display: display, channel: c, address: p.Address(c), linkFor: p.Name, onBehalfOf: onBehalfOf, timeZone: p.TimeZone})
		}
	}
	// A person's devices are theirs whether or not people lists them: turning on
	// notifications in the inbox is their choice of the channel.
	reachDevices := func(name, onBehalfOf string) {
		display := name
		if p := r.people[name]; p != nil {
			display = cmp.Or(p.DisplayName, p.Name)
		}
		for _, d := range r.devices[name] {
			add(recipient{name: name, display: display, channel: hitl.ChannelWebPush, address: d.Endpoint, linkFor: name, onBehalfOf: onBehalfOf})
		}
	}
	addPerson := func(name string) {
		if s := r.away.standIn(name); s != "" {
			reachDevices(s, name) // the stand-in's phones, not the away person's
			if standIn := r.people[s]; standIn != nil {
				reach(standIn, name)
				return
			}
		} else {
			reachDevices(name, "")
		}
		if p := r.people[name]; p != nil {
			reach(p, "")
		}
	}
	if len(assignees) == 0 {
		for _, d := range e.notify.Defaults {
			add(recipient{name: hitl.RecipientDefault, channel: d.Channel, address: d.Address})
		}
		// Anyone who answers may answer it: each of them who turned on notifications hears of
		// it on their devices (not the one who asked: nobody answers their own question).
		for _, name := range r.answerers {
			if name != inq.CreatedBy {
				reachDevices(name, "")
			}
		}
	}
	for _, a := range assignees {
		name, isGroup := hitl.GroupOf(a)
		if !isGroup {
			addPerson(a)
			continue
		}
		if g := r.groups[name]; g != nil && (allowed(hitl.ChannelEmail) && g.Email != "" || allowed(hitl.ChannelSlack) && g.SlackChannel != "") {
			add(recipient{name: a, display: a, channel: hitl.ChannelEmail, address: g.Email})
			add(recipient{name: a, display: a, channel: hitl.ChannelSlack, address: g.SlackChannel})
			for _, m := range r.members[name] {
				reachDevices(m, "") // a phone is its person's: the group's room does not stand for it
			}
			continue
		}
		for _, m := range r.members[name] {
			reachDevices(m, "") // a group's inquiries are not delegated: its other members answer them
			if p := r.people[m]; p != nil {
				reach(p, "")
			}
		}
	}
	return out
}

// notifyEvent is an inquiry event as its messages show it: the inquiry, and what reminders
// and escalations add.
type notifyEvent struct {
	hitl.Inquiry
	notifyAdds
}

// notifyAdds is what reminders and escalations add to an inquiry event.
type notifyAdds struct {
	Reminder int      `json:"reminder"`
	Added    []string `json:"added"`
	Step     int      `json:"step"`
	// Channels are those an escalation step notifies by (empty: every channel).
	Channels []string `json:"channels"`
}

// notifyRouting is what routing reads of an inquiry event to learn who hears of it: most
// events reach no one, and decoding the whole inquiry of every event for that cost the outbox
// a twentieth of a create+respond cycle's CPU (BenchmarkCycle).
type notifyRouting struct {
	ID          int64    `json:"id"`
	Joined      *int64   `json:"joined"`
	CreatedBy   string   `json:"created_by"`
	AssignedTo  []string `json:"assigned_to"`
	ChannelHint string   `json:"channel_hint"`
	Notify      []string `json:"notify"`
	notifyAdds
}

// notificationsFor lists the notifications one event asks for. earlier are the notifications
// made before it in the same page of the log.
func (e *Engine) notificationsFor(ctx context.Context, r *routing, ev *hitl.Event, earlier []*hitl.Delivery) ([]*hitl.Delivery, error) {
	if ev.InquiryID == nil || !slices.Contains(notifyEventTypes, ev.Type) {
		return nil, nil
	}
	reason := reasonOf(ev.Type)
	// An answer's follow-ups go where the inquiry's earlier notifications went, which its id
	// finds: its routing is not decoded (a decode reads the whole inquiry, a tenth of the
	// node's CPU in a create+respond run on PostgreSQL), and a joined inquiry, of which no
	// one was told, is known by its whole event below if a room hears of its answer.
	var ne notifyRouting
	if reason != hitl.ReasonResolved {
		if err := json.Unmarshal(ev.Data, &ne); err != nil {
			e.log.Error("an event cannot be read for its notifications", "seq", ev.Seq, "err", err)
			return nil, nil
		}
		if ne.Joined != nil {
			return nil, nil // people hear of the inquiry it joined (engine/dedup.go)
		}
	}
	inq := &hitl.Inquiry{ID: *ev.InquiryID, CreatedBy: ne.CreatedBy, AssignedTo: ne.AssignedTo, ChannelHint: ne.ChannelHint, Notify: ne.Notify}
	r.away = delegationsAt(r.absences, ev.Time)
	asked := ev.Type
	if asked == hitl.EventInquiryPromoted {
		asked = hitl.EventInquiryCreated // a room that hears of new questions hears of it
	}
	var rcs []recipient
	for _, w := range r.chats {
		if slices.Contains(w.Events, asked) && !ev.Time.Before(w.CreatedAt) {
			// A room's address is its chat webhook's ID, not the URL: the URL is a credential,
			// which the sender looks up when it posts (see ChatWebhookURL).
			rcs = append(rcs, recipient{name: w.ID, channel: hitl.ChannelChatWebhook, address: w.ID, chatKind: w.Kind})
		}
	}
	if len(e.notify.Channels) > 0 {
		switch {
		case ev.Type == hitl.EventInquiryStepCompleted:
			rcs = append(rcs, e.recipientsOf(r, inq, ne.Added)...)
		case reason == hitl.ReasonCreated, reason == hitl.ReasonReminder:
			rcs = append(rcs, e.recipientsOf(r, inq, inq.AssignedTo)...)
		case reason == hitl.ReasonEscalation:
			rcs = append(rcs, e.recipientsOf(r, inq, ne.Added)...)
		case reason == hitl.ReasonResolved:
			notified, err := e.notifiedBefore(ctx, inq.ID, earlier)
			if err != nil {
				return nil, err
			}
			rcs = append(rcs, notified...)
		}
	}
	if reason == hitl.ReasonEscalation && len(ne.Channels) > 0 {
		rcs = slices.DeleteFunc(rcs, func(rc recipient) bool { return !slices.Contains(ne.Channels, rc.channel) })
	}
	out := make([]*hitl.Delivery, 0, len(rcs))
	if len(rcs) == 0 {
		return out, nil
	}
	var whole notifyEvent // what the messages say
	if err := json.Unmarshal(ev.Data, &whole); err != nil {
		e.log.Error("an event cannot be read for its notifications", "seq", ev.Seq, "err", err)
		return nil, nil
	}
	if whole.Joined != nil {
		return nil, nil
	}
	inq = &whole.Inquiry
	nth := ne.Reminder // what tells two messages of one reason to one recipient apart
	if ev.Type == hitl.EventInquiryStepCompleted || ev.Type == hitl.EventInquiryEscalated {
		nth = ne.Step // a ladder's step; 0 for escalations from before ladders
	}
	for _, rc := range rcs {
		d, err := e.notification(ev, inq, rc, reason, nth, ne.Added)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// notifiedBefore lists the people and groups an inquiry's earlier notifications went to
// (not rooms: a chat webhook posts on the events it subscribed to).
func (e *Engine) notifiedBefore(ctx context.Context, id int64, earlier []*hitl.Delivery) ([]recipient, error) {
	notified, err := e.store.Notified(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, d := range earlier {
		if d.Channel != hitl.ChannelChatWebhook && d.Reason != hitl.ReasonResolved && d.InquiryID != nil && *d.InquiryID == id {
			notified = append(notified, hitl.Notified{Recipient: d.Recipient, Channel: d.Channel, Address: d.Address})
		}
	}
	var out []recipient
	for _, n := range notified {
		if !slices.ContainsFunc(out, func(o recipient) bool { return o.channel == n.Channel && o.address == n.Address }) {
			out = append(out, recipient{name: n.Recipient, display: n.Recipient, channel: n.Channel, address: n.Address})
		}
	}
	return out, nil
}

// notificationID names a notification by what it says, so that it is made once.
func notificationID(inquiry int64, rc recipient, reason hitl.NotifyReason, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%s\x00%s\x00%d", inquiry, rc.name, rc.channel, rc.address, reason, n))
	return "ntf_" + hex.EncodeToString(sum[:16])
}

// notification makes the delivery of one message.
func (e *Engine) notification(ev *hitl.Event, inq *hitl.Inquiry, rc recipient, reason hitl.NotifyReason, nth int, added []string) (*hitl.Delivery, error) {
	now := e.clock()
	base := strings.TrimRight(e.notify.PublicURL, "/")
	n := hitl.Notification{
		Channel: rc.channel, Reason: reason, Recipient: rc.name, DisplayName: rc.display, OnBehalfOf: rc.onBehalfOf, Address: rc.address,
		ChatKind: rc.chatKind, TimeZone: rc.timeZone, Event: ev.Type, Inquiry: inq, PublicURL: base,
		InboxURL: base + "/inquiries/" + strconv.FormatInt(inq.ID, 10),
	}
	if reason == hitl.ReasonReminder {
		n.Reminder = nth
	}
	if reason == hitl.ReasonEscalation {
		n.Added = added
	}
	if rc.linkFor != "" && inq.Status == hitl.StatusPending {
		exp := now.Add(defaultLinkTTL).Truncate(time.Second)
		if inq.TimeoutAt != nil && inq.TimeoutAt.After(now) && inq.TimeoutAt.Before(exp) {
			exp = inq.TimeoutAt.Truncate(time.Second).Add(time.Second)
		}
		// The server makes the link for its own message: nobody carries the answer, and the
		// link answers while the person is reached at this address.
		n.AnswerToken = e.linkToken(linkClaims{Inquiry: inq.ID, For: rc.linkFor, Channel: rc.channel, Address: rc.address, Expires: exp.Unix()})
		n.AnswerURL, n.AnswerExpires = base+"/a/"+n.AnswerToken, &exp
		if rc.channel == hitl.ChannelEmail {
			n.ReplyToken = e.ReplyToken(inq.ID, rc.linkFor)
		}
		if rc.channel == hitl.ChannelWebPush && inq.IsPlainApproval() {
			n.ActionToken = e.pushActionToken(actionClaims{
				linkClaims: linkClaims{Inquiry: inq.ID, For: rc.linkFor, Channel: rc.channel, Address: rc.address, Expires: exp.Unix()},
				Nonce:      notificationID(inq.ID, rc, reason, nth)})
		}
	}
	body, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	target := rc.channel
	if rc.channel == hitl.ChannelChatWebhook {
		target = rc.name
	}
	return &hitl.Delivery{
		ID: notificationID(inq.ID, rc, reason, nth), Kind: hitl.DeliveryNotification, Target: target,
		EventSeq: ev.Seq, EventID: ev.ID, EventType: ev.Type, InquiryID: ev.InquiryID, Session: ev.Session,
		Channel: rc.channel, Recipient: rc.name, Address: rc.address, Reason: reason, Payload: body,
		Status: hitl.DeliveryPending, NextAttemptAt: &now, CreatedAt: now, RetryFrom: now,
	}, nil
}

// Notifications lists the messages sent about an inquiry, oldest first, to whoever may see
// it; where each went (an address, a URL) and what the receiver answered only admins see.
func (e *Engine) Notifications(ctx context.Context, p *hitl.Principal, id int64) ([]*hitl.Delivery, error) {
	if _, err := e.Inquiry(ctx, p, id); err != nil {
		return nil, err
	}
	ds, _, err := e.store.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: id, Page: hitl.Page{Limit: 1000}})
	if err != nil {
		return nil, err
	}
	slices.Reverse(ds)
	if !p.IsAdmin() {
		for _, d := range ds {
			d.Address, d.URL, d.LastResponse = "", "", ""
		}
	}
	return ds, nil
}
