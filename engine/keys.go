package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
)

// envAdminKeyID is the key that HITL_ADMIN_TOKEN sets at every start.
const envAdminKeyID = "key_env_admin"

// tokenPrefix makes hitl tokens recognizable (in logs, in secret scanners).
const tokenPrefix = "hitl_"

// newToken returns a random token of 256 bits.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is how tokens are stored. They are random and long, so a fast hash is enough:
// there is no password to guess from it.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func newKeyID() string {
	b := make([]byte, 9)
	rand.Read(b)
	return "key_" + base64.RawURLEncoding.EncodeToString(b)
}

// Authenticate returns the principal a token speaks for (EUnauthorized otherwise), with the
// away people it stands in for now.
func (e *Engine) Authenticate(ctx context.Context, token string) (*hitl.Principal, error) {
	if token == "" {
		return nil, hitl.Errorf(hitl.EUnauthorized, "missing credentials: send Authorization: Bearer <token> or X-API-Key")
	}
	hash := hashToken(token)
	if p := e.keys.get(hash, e.clk.Now()); p != nil {
		return e.withDelegations(ctx, p)
	}
	k, err := e.store.KeyByTokenHash(ctx, hash)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, hitl.Errorf(hitl.EUnauthorized, "the token is unknown or revoked")
	}
	if err != nil {
		return nil, err
	}
	p := k.Principal()
	e.keys.put(hash, k.ID, p, e.clk.Now())
	return e.withDelegations(ctx, p)
}

// keyCacheTTL bounds how long a principal is remembered without asking the store. A revoked
// key is forgotten at once, through its key.revoked event, on every node; the TTL only limits
// how long a cache entry lives at all.
const keyCacheTTL = time.Minute

const keyCacheMax = 10000

// keyCache remembers the principals of tokens recently seen, by token hash, so that a request
// does not cost a database round trip to authenticate.
type keyCache struct {
	mu sync.Mutex
	m  map[string]cachedKey
}

type cachedKey struct {
	keyID string
	p     *hitl.Principal
	at    time.Time
}

func (c *keyCache) get(hash string, now time.Time) *hitl.Principal {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[hash]
	if !ok || now.Sub(k.at) > keyCacheTTL {
		return nil
	}
	return k.p
}

func (c *keyCache) put(hash, keyID string, p *hitl.Principal, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= keyCacheMax {
		c.m = make(map[string]cachedKey)
	}
	c.m[hash] = cachedKey{keyID: keyID, p: p, at: now}
}

// forget drops every entry of a key.
func (c *keyCache) forget(keyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for hash, k := range c.m {
		if k.keyID == keyID {
			delete(c.m, hash)
		}
	}
}

// keyChanged is called with every key event, from this node or another.
func (e *Engine) keyChanged(ev *hitl.Event) {
	var k struct {
		ID     string   `json:"id"`
		Groups []string `json:"groups"`
	}
	if err := json.Unmarshal(ev.Data, &k); err != nil || k.ID == "" {
		e.log.Error("a key event cannot be read", "seq", ev.Seq, "err", err)
		e.keys.mu.Lock()
		e.keys.m = nil // forget everything rather than trust a key that may be revoked
		e.keys.mu.Unlock()
		return
	}
	e.keys.forget(k.ID)
	if ev.Type != hitl.EventKeyRevoked {
		e.knowGroups(k.Groups)
	}
}

// keyEvent records a change of a key in the log (without its token).
func keyEvent(tx hitl.Tx, typ string, k *hitl.Key, actor string, at time.Time) (*hitl.Event, error) {
	shown := *k
	shown.Token = ""
	return appendAuditEvent(tx, typ, shown, actor, at)
}

// CreateKey makes a key for a principal and returns it with its token, shown this once.
func (e *Engine) CreateKey(ctx context.Context, p *hitl.Principal, req *hitl.KeyRequest) (*hitl.Key, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	var bad problems
	if !namePattern.MatchString(req.Name) {
		bad.add("/name", "must be 1 to 200 characters of letters, digits, . _ @ -")
	}
	if len(req.Roles) == 0 {
		bad.add("/roles", "at least one of admin, agent, responder, relay")
	}
	for i, r := range req.Roles {
		if !hitl.ValidRole(r) {
			bad.add(fmt.Sprintf("/roles/%d", i), "must be admin, agent, responder or relay")
		}
	}
	for i, g := range req.Groups {
		if !namePattern.MatchString(g) {
			bad.add(fmt.Sprintf("/groups/%d", i), "must be 1 to 200 characters of letters, digits, . _ @ -")
		}
	}
	if err := bad.err("invalid key"); err != nil {
		return nil, err
	}
	k := &hitl.Key{ID: newKeyID(), Name: req.Name, Roles: sortedSet(req.Roles), Groups: sortedSet(req.Groups), CreatedAt: e.clock()}
	if err := e.checkKeyName(ctx, k); err != nil {
		return nil, err
	}
	token := newToken()
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if err = insertKey(tx, k, hashToken(token)); err != nil {
			return err
		}
		ev, err = keyEvent(tx, hitl.EventKeyCreated, k, p.Name, k.CreatedAt)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.published([]*hitl.Event{ev})
	k.Token = token
	e.log.Info("key created", "key_id", k.ID, "name", k.Name, "roles", strings.Join(k.Roles, ","), "actor", p.Name)
	return k, nil
}

func sortedSet(ss []string) []string {
	out := slices.Compact(slices.Sorted(slices.Values(ss)))
	if out == nil {
		out = []string{}
	}
	return out
}

// Keys lists every key, without tokens.
func (e *Engine) Keys(ctx context.Context, p *hitl.Principal) ([]*hitl.Key, error) {
	if err := mayAdmin(p); err != nil {
		return nil, err
	}
	return e.store.Keys(ctx)
}

// RevokeKey revokes a key at once.
func (e *Engine) RevokeKey(ctx context.Context, p *hitl.Principal, id string) error {
	if err := mayAdmin(p); err != nil {
		return err
	}
	now := e.clock()
	var ev *hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if err = tx.RevokeKey(id, now); err != nil {
			return err
		}
		if err = tx.DeleteKeyInboxSessions(id); err != nil {
			return err
		}
		ev, err = keyEvent(tx, hitl.EventKeyRevoked, &hitl.Key{ID: id, RevokedAt: &now}, p.Name, now)
		return err
	})
	if err != nil {
		return err
	}
	e.published([]*hitl.Event{ev})
	e.log.Info("key revoked", "key_id", id, "actor", p.Name)
	return nil
}

// Bootstrap makes sure an admin can get in. With adminToken, the principal admin holds exactly
// that token. Without one, when no admin key exists, it creates one and returns its token
// (shown once by the caller); otherwise it returns "".
func (e *Engine) Bootstrap(ctx context.Context, adminToken string) (newAdminToken string, err error) {
	now := e.clock()
	var evs []*hitl.Event
	if adminToken != "" {
		if len(adminToken) < 16 {
			return "", fmt.Errorf("HITL_ADMIN_TOKEN must be at least 16 characters")
		}
		hash := hashToken(adminToken)
		if k, err := e.store.KeyByTokenHash(ctx, hash); err == nil && k.ID == envAdminKeyID {
			return "", nil // already so
		}
		setToken := func(tx hitl.Tx) error {
			k := &hitl.Key{ID: envAdminKeyID, Name: "admin", Roles: []string{hitl.RoleAdmin}, Groups: []string{}, CreatedAt: now}
			typ := hitl.EventKeyUpdated
			err := tx.SetKeyToken(envAdminKeyID, hash)
			if err == nil {
				// The inbox sessions signed in with the token it had end with that token.
				err = tx.DeleteKeyInboxSessions(envAdminKeyID)
			}
			if hitl.ErrorCode(err) == hitl.ENotFound {
				typ, err = hitl.EventKeyCreated, insertKey(tx, k, hash)
			}
			if err != nil {
				return err
			}
			ev, err := keyEvent(tx, typ, k, "HITL_ADMIN_TOKEN", now)
			evs = []*hitl.Event{ev}
			return err
		}
		err = e.store.Update(ctx, setToken)
		if hitl.ErrorCode(err) == hitl.EConflict {
			// Another node starting at the same moment created the key: set its token now.
			err = e.store.Update(ctx, setToken)
		}
	} else {
		err = e.store.Update(ctx, func(tx hitl.Tx) error {
			has, err := tx.HasAdminKey()
			if err != nil || has {
				return err
			}
			newAdminToken = newToken()
			k := &hitl.Key{ID: newKeyID(), Name: "admin", Roles: []string{hitl.RoleAdmin}, Groups: []string{}, CreatedAt: now}
			if err := insertKey(tx, k, hashToken(newAdminToken)); err != nil {
				return err
			}
			ev, err := keyEvent(tx, hitl.EventKeyCreated, k, "first start", now)
			evs = []*hitl.Event{ev}
			return err
		})
	}
	if err != nil {
		return "", err
	}
	e.published(evs)
	return newAdminToken, nil
}

// checkKeyName refuses a key that would give a name another principal's powers. A name is one
// principal: what it created, what is assigned to it, what it answered are all by name. So
// another key for a name that an unrevoked key holds (a second credential, to rotate one) must
// hold the same roles and groups; an agent key named admin would otherwise own what the admin
// created.
func (e *Engine) checkKeyName(ctx context.Context, k *hitl.Key) error {
	keys, err := e.store.Keys(ctx)
	if err != nil {
		return err
	}
	for _, other := range keys {
		if other.Name == k.Name && other.RevokedAt == nil && (!slices.Equal(other.Roles, k.Roles) || !slices.Equal(other.Groups, k.Groups)) {
			return hitl.Errorf(hitl.EConflict, "%s already has a key (%s) with %s and %s; another key for %s must have the same roles and groups, or choose another name",
				k.Name, other.ID, listOrNone("the role", other.Roles), listOrNone("the group", other.Groups), k.Name)
		}
	}
	return nil
}

// listOrNone names a key's roles or groups in words: "the roles agent, responder",
// "the group sre", "no groups".
func listOrNone(noun string, items []string) string {
	switch len(items) {
	case 0:
		return "no " + strings.TrimPrefix(noun, "the ") + "s"
	case 1:
		return noun + " " + items[0]
	}
	return noun + "s " + strings.Join(items, ", ")
}

// insertKey stores a new key and gives its name an integer identity if it has none yet.
func insertKey(tx hitl.Tx, k *hitl.Key, tokenHash string) (err error) {
	if err = tx.InsertKey(k, tokenHash); err != nil {
		return err
	}
	k.IdentityID, err = tx.Identity(k.Name)
	return err
}

// IdentityIDs returns the integer identities of those names that have one, for adapters
// that show people by number.
func (e *Engine) IdentityIDs(ctx context.Context, names []string) (map[string]int64, error) {
	return e.store.IdentityIDs(ctx, names)
}

// IdentityName returns the name that holds an integer identity (ENotFound, in words).
func (e *Engine) IdentityName(ctx context.Context, id int64) (string, error) {
	name, err := e.store.IdentityName(ctx, id)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return "", hitl.Errorf(hitl.ENotFound, "no principal has identity %d", id)
	}
	return name, err
}
