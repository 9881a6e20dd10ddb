package hitl

import (
	"slices"
	"time"
)

// Roles a principal may hold; a key may carry several.
const (
	RoleAdmin     = "admin"
	RoleAgent     = "agent"
	RoleResponder = "responder"
	// RoleRelay lets a bot that carries people's answers (a chat bot, an operator console)
	// record an answer as the person's, "alice@example.com via ops-bot"; it answers as a
	// responder does, so a relay key holds both roles.
	RoleRelay = "relay"
)

// roles are the known roles, in the order people meet them: who asks, who answers, who may do
// everything, who carries other people's answers.
var roles = [...]string{RoleAgent, RoleResponder, RoleAdmin, RoleRelay}

// Roles are the known roles, for the lists and help texts that name them all.
func Roles() []string { return slices.Clone(roles[:]) }

// ValidRole reports whether r is a known role.
func ValidRole(r string) bool { return slices.Contains(roles[:], r) }

// Principal is who a token speaks for.
type Principal struct {
	Name string `json:"name"`
	// IdentityID is the principal's stable integer identity (0 when not known yet): one per
	// name, kept across key rotation, for workflow engines that name people by number.
	IdentityID int64    `json:"identity_id"`
	Roles      []string `json:"roles"`
	Groups     []string `json:"groups"`
	// KeyID is the key the caller authenticated with (to end its streams when it is revoked).
	KeyID string `json:"-"`
	// InboxSession is the hash of the inbox session id the caller authenticated with, "" for a
	// token (to end its streams when the session ends).
	InboxSession string `json:"-"`
	// Via is who carries this principal's answer: the maker of the answer link it came
	// through, when that is not the person and not the server itself. The answer records it as
	// relayed_by, and separation of duties counts it as it counts the person.
	Via string `json:"-"`
	// ActsFor are the absent people this principal is the delegate of now (see Absence), nearest
	// first: the engine fills it in when it makes the principal, and answers, sees and notifies
	// by it.
	ActsFor []string `json:"-"`
}

// Caller is what GET /v1/me answers: the caller's principal, with the key it authenticated
// with, which the principal keeps out of JSON elsewhere.
type Caller struct {
	*Principal
	KeyID string `json:"key_id"`
}

// AsCaller is the principal as GET /v1/me shows it.
func (p *Principal) AsCaller() Caller { return Caller{Principal: p, KeyID: p.KeyID} }

// Has reports whether the principal holds the role.
func (p *Principal) Has(role string) bool { return slices.Contains(p.Roles, role) }

// IsAdmin reports whether the principal may do everything.
func (p *Principal) IsAdmin() bool { return p.Has(RoleAdmin) }

// Entries are the assignment entries that name this principal: its name and group:NAME for each group.
func (p *Principal) Entries() []string {
	out := make([]string, 0, 1+len(p.Groups))
	out = append(out, p.Name)
	for _, g := range p.Groups {
		out = append(out, GroupEntry(g))
	}
	return out
}

// Key is a stored API key. The token itself is shown once at creation and kept only as a hash.
type Key struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// IdentityID is the integer identity of Name (see Principal.IdentityID).
	IdentityID int64      `json:"identity_id"`
	Roles      []string   `json:"roles"`
	Groups     []string   `json:"groups"`
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	// Token is set only in the answer to the request that created the key.
	Token string `json:"token,omitempty"`
}

// Principal returns the principal the key speaks for.
func (k *Key) Principal() *Principal {
	return &Principal{Name: k.Name, IdentityID: k.IdentityID, Roles: k.Roles, Groups: k.Groups, KeyID: k.ID}
}

// KeyRequest creates a key (POST /v1/keys).
type KeyRequest struct {
	Name   string   `json:"name"`
	Roles  []string `json:"roles"`
	Groups []string `json:"groups,omitempty"`
}

// InboxSession is one sign-in to the web inbox. The browser holds a random id; the store keeps
// only its hash, with the key it speaks for. It ends at ExpiresAt, at sign-out, or when its key
// is revoked.
type InboxSession struct {
	IDHash    string
	KeyID     string
	CreatedAt time.Time
	ExpiresAt time.Time
}
