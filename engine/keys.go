package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

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

// Authenticate returns the principal a token speaks for (EUnauthorized otherwise).
func (e *Engine) Authenticate(ctx context.Context, token string) (*hitl.Principal, error) {
	if token == "" {
		return nil, hitl.Errorf(hitl.EUnauthorized, "missing credentials: send Authorization: Bearer <token> or X-API-Key")
	}
	k, err := e.store.KeyByTokenHash(ctx, hashToken(token))
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, hitl.Errorf(hitl.EUnauthorized, "the token is unknown or revoked")
	}
	if err != nil {
		return nil, err
	}
	return k.Principal(), nil
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
		bad.add("/roles", "at least one of admin, agent, responder")
	}
	for i, r := range req.Roles {
		if !hitl.ValidRole(r) {
			bad.add(fmt.Sprintf("/roles/%d", i), "must be admin, agent or responder")
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
	token := newToken()
	if err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.InsertKey(k, hashToken(token)) }); err != nil {
		return nil, err
	}
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
	if err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.RevokeKey(id, e.clock()) }); err != nil {
		return err
	}
	e.log.Info("key revoked", "key_id", id, "actor", p.Name)
	return nil
}

// Bootstrap makes sure an admin can get in. With adminToken, the principal admin holds exactly
// that token. Without one, when no admin key exists, it creates one and returns its token
// (shown once by the caller); otherwise it returns "".
func (e *Engine) Bootstrap(ctx context.Context, adminToken string) (newAdminToken string, err error) {
	now := e.clock()
	if adminToken != "" {
		if len(adminToken) < 16 {
			return "", fmt.Errorf("HITL_ADMIN_TOKEN must be at least 16 characters")
		}
		return "", e.store.Update(ctx, func(tx hitl.Tx) error {
			err := tx.SetKeyToken(envAdminKeyID, hashToken(adminToken))
			if hitl.ErrorCode(err) != hitl.ENotFound {
				return err
			}
			k := &hitl.Key{ID: envAdminKeyID, Name: "admin", Roles: []string{hitl.RoleAdmin}, Groups: []string{}, CreatedAt: now}
			return tx.InsertKey(k, hashToken(adminToken))
		})
	}
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		has, err := tx.HasAdminKey()
		if err != nil || has {
			return err
		}
		newAdminToken = newToken()
		k := &hitl.Key{ID: newKeyID(), Name: "admin", Roles: []string{hitl.RoleAdmin}, Groups: []string{}, CreatedAt: now}
		return tx.InsertKey(k, hashToken(newAdminToken))
	})
	return newAdminToken, err
}
