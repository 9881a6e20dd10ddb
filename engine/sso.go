package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Single sign-on: a person whom the organisation's identity provider vouches for is signed in
// to the inbox without an API token. Each person so signed in has one key of their own, a
// sign-in key: it holds the roles and groups the provider's token gave at the last sign-in and
// no token anyone could use, and the person's inbox sessions speak for it. So every rule that
// reads keys (who may answer, separation of duties, revocation ending the sessions) holds for
// people who sign in this way as for those with tokens.

// signInKeyPrefix starts the id of every sign-in key: the mark that a sign-in made it.
const signInKeyPrefix = "key_sso_"

// IsSignInKey tells whether a key was made by single sign-on rather than by an admin.
func IsSignInKey(id string) bool { return strings.HasPrefix(id, signInKeyPrefix) }

// SSOSignIn is what an identity provider vouched for, as the inbox read it from the ID token.
type SSOSignIn struct {
	// Name is the value of the claim that names the person (email, preferred_username): the
	// name of their key, the name inquiries are assigned to.
	Name string
	// DisplayName and Email, when the provider sent them, update the person.
	DisplayName string
	Email       string
	// Groups are the values of the groups claim: they replace those of the last sign-in.
	Groups []string
	// AdminGroup is the group whose members are admins ("" : nobody is made admin by sign-in).
	AdminGroup string
}

// SSOAccess is what the person got at sign-in: the inbox session's id (kept by the browser
// alone, as SignIn's) and when it expires, the roles and groups of the sign-in key, and the
// groups of the token that are not valid group names and so were left out.
type SSOAccess struct {
	Session   string
	Expires   time.Time
	Roles     []string
	Groups    []string
	Dismissed []string
}

// SignInWithSSO signs in a person whom the identity provider vouched for: in one transaction,
// the person is created or updated, their sign-in key made or brought to the roles and groups
// of this sign-in, and an inbox session started for it. Responder is every such person's role;
// members of AdminGroup are admins too. A key whose roles or groups change is revoked and
// replaced (its other inbox sessions end: they spoke with the old powers); the key and person
// changes are audit events, as an admin's are.
//
// The caller has checked the provider's ID token: this trusts what it is given.
func (e *Engine) SignInWithSSO(ctx context.Context, in SSOSignIn) (*SSOAccess, error) {
	if err := checkPersonName(in.Name); err != nil {
		return nil, hitl.Errorf(hitl.EInvalid, "the identity provider names you %q, which is not a name hitl can use: 1 to 200 characters of letters, digits, . _ @ -", in.Name)
	}
	roles := []string{hitl.RoleResponder}
	var groups, dismissed []string
	for _, g := range in.Groups {
		if namePattern.MatchString(g) {
			groups = append(groups, g)
		} else {
			dismissed = append(dismissed, g)
		}
	}
	groups = sortedSet(groups)
	if in.AdminGroup != "" && slices.Contains(groups, in.AdminGroup) {
		roles = sortedSet(append(roles, hitl.RoleAdmin))
	}
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return nil, err
	}
	// The name's sign-in key: one that already has these roles and groups is kept; every other
	// one is revoked (two sign-ins at once may each have made one).
	var keep *hitl.Key
	var stale []*hitl.Key
	for _, k := range keys {
		switch {
		case k.Name != in.Name || k.RevokedAt != nil:
		case IsSignInKey(k.ID) && keep == nil && slices.Equal(k.Roles, roles) && slices.Equal(k.Groups, groups):
			keep = k
		case IsSignInKey(k.ID):
			stale = append(stale, k)
		case !slices.Equal(k.Roles, roles) || !slices.Equal(k.Groups, groups):
			// A name is one principal: an admin's key of the same name with other powers would
			// make two people of one, or let the provider grant what the admin did not.
			return nil, hitl.Errorf(hitl.EConflict, "%s already has an API key (%s) with %s and %s, and signing in would give %s and %s; an admin revokes that key or makes it match before %s signs in here",
				in.Name, k.ID, listOrNone("the role", k.Roles), listOrNone("the group", k.Groups), listOrNone("the role", roles), listOrNone("the group", groups), in.Name)
		}
	}
	person, err := e.store.Person(ctx, in.Name)
	isNew := hitl.ErrorCode(err) == hitl.ENotFound
	switch {
	case isNew:
		person = &hitl.Person{Name: in.Name, Channels: []string{}}
	case err != nil:
		return nil, err
	}
	changed := *person
	if in.DisplayName != "" && len([]rune(in.DisplayName)) <= maxShortText {
		changed.DisplayName = in.DisplayName
	}
	if in.Email != "" {
		var bad problems
		if checkEmail(&bad, "/email", in.Email); len(bad) == 0 {
			changed.Email = in.Email
		}
	}
	now := e.clock()
	changed.UpdatedAt = now
	personChanged := isNew || changed.DisplayName != person.DisplayName || changed.Email != person.Email
	id := newSessionID()
	session := &hitl.InboxSession{IDHash: hashToken(id), CreatedAt: now, ExpiresAt: now.Add(InboxSessionTTL)}
	var evs []*hitl.Event
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		evs = nil
		for _, old := range stale {
			if err := tx.RevokeKey(old.ID, now); err != nil {
				return err
			}
			if err := tx.DeleteKeyInboxSessions(old.ID); err != nil {
				return err
			}
			ev, err := keyEvent(tx, hitl.EventKeyRevoked, &hitl.Key{ID: old.ID, RevokedAt: &now}, in.Name, now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		key := keep
		if key == nil {
			key = &hitl.Key{ID: signInKeyPrefix + newKeyID()[len("key_"):], Name: in.Name, Roles: roles, Groups: groups, CreatedAt: now}
			if err := insertKey(tx, key, unusableTokenHash()); err != nil {
				return err
			}
			ev, err := keyEvent(tx, hitl.EventKeyCreated, key, in.Name, now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		if personChanged {
			if err := tx.PutPerson(&changed); err != nil {
				return err
			}
			ev, err := appendAuditEvent(tx, hitl.EventPersonUpdated, &changed, in.Name, now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		session.KeyID = key.ID
		return startInboxSession(tx, session, now)
	})
	if err != nil {
		return nil, err
	}
	e.published(evs)
	e.log.Info("signed in to the inbox with single sign-on", "key_id", session.KeyID, "name", in.Name, "groups", strings.Join(groups, ","), "roles", strings.Join(roles, ","))
	return &SSOAccess{Session: id, Expires: session.ExpiresAt, Roles: roles, Groups: groups, Dismissed: dismissed}, nil
}

// unusableTokenHash is the token hash of a sign-in key: not the hash of any token (a hash is
// 64 hex digits; this has a prefix no hash has), so no request can authenticate with it, and
// unique, as every token hash is.
func unusableTokenHash() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "sso-sign-in:" + hex.EncodeToString(b)
}
