package engine

import (
	"context"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
)

// People and groups: where notifications find the humans hitl asks. Admins keep them; their
// changes are events that only admins see.

var (
	// Slack's IDs: users U… or W… (Enterprise Grid); conversations C… (public), G… (private), D… (direct).
	slackUserPattern    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
	slackChannelPattern = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
)

const maxEmail = 254

// checkEmail adds a problem at path unless addr is one plain address, like ada@example.com.
func checkEmail(bad *problems, path, addr string) {
	a, err := mail.ParseAddress(addr)
	switch {
	case len(addr) > maxEmail:
		bad.add(path, "must be at most %d characters", maxEmail)
	case err != nil || a.Address != addr || a.Name != "" || !strings.Contains(addr[strings.LastIndexByte(addr, '@')+1:], "."):
		bad.add(path, "%q is not an email address; give one like ada@example.com", addr)
	}
}

func checkSlackUser(bad *problems, path, id string) {
	if !slackUserPattern.MatchString(id) {
		bad.add(path, "%q is not a Slack user ID: it starts with U or W and goes on in capitals and digits, like U012AB3CD (Slack: the person's profile, ⋮, Copy member ID)", id)
	}
}

func checkSlackChannel(bad *problems, path, id string) {
	if !slackChannelPattern.MatchString(id) {
		bad.add(path, "%q is not a Slack channel ID: it starts with C, G or D and goes on in capitals and digits, like C012AB3CD (Slack: the channel's details, at the bottom)", id)
	}
}

func checkPersonName(name string) error {
	if !namePattern.MatchString(name) {
		return hitl.Errorf(hitl.EInvalid, "a person's name is the name of its keys: 1 to 200 characters of letters, digits, . _ @ -")
	}
	return nil
}

// PutPerson sets where a person is reached (admin), replacing what was there.
func (e *Engine) PutPerson(ctx context.Context, p *hitl.Principal, name string, req *hitl.PersonRequest) (*hitl.Person, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	if err := checkPersonName(name); err != nil {
		return nil, err
	}
	var bad problems
	if n := utf8.RuneCountInString(req.DisplayName); n > maxShortText {
		bad.add("/display_name", "must be at most %d characters", maxShortText)
	}
	if req.Email != "" {
		checkEmail(&bad, "/email", req.Email)
	}
	if req.SlackUserID != "" {
		checkSlackUser(&bad, "/slack_user_id", req.SlackUserID)
	}
	address := map[string]string{hitl.ChannelEmail: req.Email, hitl.ChannelSlack: req.SlackUserID}
	field := map[string]string{hitl.ChannelEmail: "email", hitl.ChannelSlack: "slack_user_id"}
	channels := []string{}
	for i, c := range req.Channels {
		path := fmt.Sprintf("/channels/%d", i)
		switch {
		case !slices.Contains(hitl.PersonChannels, c):
			bad.add(path, "%q is not a channel; a person is reached by %s", c, strings.Join(hitl.PersonChannels, " or "))
		case slices.Contains(channels, c):
			bad.add(path, "%q is listed twice", c)
		case address[c] == "":
			bad.add(path, "%s needs the person's %s", c, field[c])
		default:
			channels = append(channels, c)
		}
	}
	checkTimeZone(&bad, req.TimeZone)
	checkWorkingHours(&bad, req.WorkingHours)
	if err := bad.err("invalid person"); err != nil {
		return nil, err
	}
	if req.SlackUserID != "" {
		if err := e.slackUserFree(ctx, name, req.SlackUserID); err != nil {
			return nil, err
		}
	}
	person := &hitl.Person{Name: name, DisplayName: req.DisplayName, Email: req.Email, SlackUserID: req.SlackUserID,
		Channels: channels, TimeZone: req.TimeZone, WorkingHours: req.WorkingHours, UpdatedAt: e.clock()}
	if err := e.audited(ctx, p, hitl.EventPersonUpdated, person, func(tx hitl.Tx) error {
		// A person answers by email or chat without a key: assignees given as integer
		// identities (workflow engines) reach them too.
		if _, err := tx.Identity(name); err != nil {
			return err
		}
		return tx.PutPerson(person)
	}); err != nil {
		return nil, err
	}
	e.log.Info("person set", "person", name, "actor", p.Name)
	return person, nil
}

// slackUserFree refuses a Slack id that another person has: a click in Slack acts as the one
// person whose id it is.
func (e *Engine) slackUserFree(ctx context.Context, name, slackUserID string) error {
	people, err := e.store.People(ctx)
	if err != nil {
		return err
	}
	for _, other := range people {
		if other.Name != name && other.SlackUserID == slackUserID {
			return hitl.Errorf(hitl.EConflict, "%s already has the Slack id %s; a Slack user is one person (remove it from %s first)", other.Name, slackUserID, other.Name)
		}
	}
	return nil
}

// PrincipalBySlackUser is who clicked in Slack: the person whose slack_user_id this is, as the
// principal of that name, with the roles and groups of its keys (a name's unrevoked keys all
// carry the same). A Slack user who is no person, or a person without an unrevoked key, is
// nobody hitl may act for (ENotFound).
func (e *Engine) PrincipalBySlackUser(ctx context.Context, slackUserID string) (*hitl.Principal, error) {
	notMapped := hitl.Errorf(hitl.ENotFound, "%s is not mapped to a hitl person with a key", slackUserID)
	if slackUserID == "" {
		return nil, notMapped
	}
	people, err := e.store.People(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(people, func(p *hitl.Person) bool { return p.SlackUserID == slackUserID })
	if i < 0 {
		return nil, notMapped
	}
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.Name == people[i].Name && k.RevokedAt == nil {
			return e.withDelegations(ctx, &hitl.Principal{Name: k.Name, Roles: k.Roles, Groups: k.Groups})
		}
	}
	return nil, notMapped
}

// audited runs change and records it as an admin's audit event with data shown, in one transaction.
func (e *Engine) audited(ctx context.Context, p *hitl.Principal, typ string, shown any, change func(hitl.Tx) error) error {
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if err = change(tx); err != nil {
			return err
		}
		ev, err = appendAuditEvent(tx, typ, shown, p.Name, e.clock())
		return err
	})
	if err != nil {
		return err
	}
	e.published([]*hitl.Event{ev})
	return nil
}

// Person returns one person (admin).
func (e *Engine) Person(ctx context.Context, p *hitl.Principal, name string) (*hitl.Person, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	if err := checkPersonName(name); err != nil {
		return nil, err
	}
	person, err := e.store.Person(ctx, name)
	if err != nil {
		return nil, err
	}
	if person.Absence, err = e.currentAbsence(ctx, name); hitl.ErrorCode(err) == hitl.ENotFound {
		err = nil
	}
	return person, err
}

// People lists every person (admin), by name.
func (e *Engine) People(ctx context.Context, p *hitl.Principal) ([]*hitl.Person, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	return e.store.People(ctx)
}

// DeletePerson forgets where a person is reached (admin); the person's keys stay.
func (e *Engine) DeletePerson(ctx context.Context, p *hitl.Principal, name string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	if err := checkPersonName(name); err != nil {
		return err
	}
	shown := map[string]string{"name": name}
	if err := e.audited(ctx, p, hitl.EventPersonDeleted, shown, func(tx hitl.Tx) error { return tx.DeletePerson(name) }); err != nil {
		return err
	}
	e.log.Info("person deleted", "person", name, "actor", p.Name)
	return nil
}

func checkGroupName(name string) error {
	if !namePattern.MatchString(name) {
		return hitl.Errorf(hitl.EInvalid, "a group's name is the one its keys carry (group:NAME in assignments, without group:): 1 to 200 characters of letters, digits, . _ @ -")
	}
	return nil
}

// PutGroup sets a group's shared contact points (admin), replacing what was there.
func (e *Engine) PutGroup(ctx context.Context, p *hitl.Principal, name string, req *hitl.GroupRequest) (*hitl.Group, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	if err := checkGroupName(name); err != nil {
		return nil, err
	}
	var bad problems
	if req.Email != "" {
		checkEmail(&bad, "/email", req.Email)
	}
	if req.SlackChannel != "" {
		checkSlackChannel(&bad, "/slack_channel", req.SlackChannel)
	}
	if err := bad.err("invalid group"); err != nil {
		return nil, err
	}
	g := &hitl.Group{Name: name, Email: req.Email, SlackChannel: req.SlackChannel, UpdatedAt: e.clock()}
	if err := e.audited(ctx, p, hitl.EventGroupUpdated, g, func(tx hitl.Tx) error { return tx.PutGroup(g) }); err != nil {
		return nil, err
	}
	e.log.Info("group set", "group", name, "actor", p.Name)
	return g, nil
}

// Group returns one group's contact points (admin).
func (e *Engine) Group(ctx context.Context, p *hitl.Principal, name string) (*hitl.Group, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	if err := checkGroupName(name); err != nil {
		return nil, err
	}
	return e.store.Group(ctx, name)
}

// Groups lists every group's contact points (admin), by name.
func (e *Engine) Groups(ctx context.Context, p *hitl.Principal) ([]*hitl.Group, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	return e.store.Groups(ctx)
}

// DeleteGroup removes a group's contact points (admin): its members are reached one by one.
func (e *Engine) DeleteGroup(ctx context.Context, p *hitl.Principal, name string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	if err := checkGroupName(name); err != nil {
		return err
	}
	shown := map[string]string{"name": name}
	if err := e.audited(ctx, p, hitl.EventGroupDeleted, shown, func(tx hitl.Tx) error { return tx.DeleteGroup(name) }); err != nil {
		return err
	}
	e.log.Info("group deleted", "group", name, "actor", p.Name)
	return nil
}

// ParseDestinations reads the server's default destinations, "slack:C012AB3CD,email:ops@example.com",
// and reports every problem at once, in words.
func ParseDestinations(s string) ([]hitl.Destination, error) {
	var bad problems
	out := []hitl.Destination{}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		path := fmt.Sprintf("destination %d (%s)", i+1, part)
		channel, addr, ok := strings.Cut(part, ":")
		switch {
		case !ok:
			bad.add(path, "give channel:address, like slack:C012AB3CD or email:ops@example.com")
		case channel == hitl.ChannelEmail:
			checkEmail(&bad, path, addr)
		case channel == hitl.ChannelSlack:
			checkSlackChannel(&bad, path, addr)
		default:
			bad.add(path, "%q is not a channel; use email or slack", channel)
		}
		d := hitl.Destination{Channel: channel, Address: addr}
		if slices.Contains(out, d) {
			bad.add(path, "is listed twice")
		}
		out = append(out, d)
	}
	if len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, b := range bad {
			msgs[i] = b.Path + ": " + b.Message
		}
		return nil, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return out, nil
}
