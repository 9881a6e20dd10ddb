package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/hitl-dev/hitl"
)

// InboxSessionTTL is how long a sign-in to the web inbox lasts; signing out or revoking the
// key ends it sooner.
const InboxSessionTTL = 12 * time.Hour

// SignIn checks an API token and starts an inbox session for its key. It returns the session's
// id, which only the browser keeps (the store has its hash, so the database cannot sign anyone
// in), and when the session expires. Sessions already expired are swept away at the same time.
func (e *Engine) SignIn(ctx context.Context, token string) (id string, expires time.Time, err error) {
	p, err := e.Authenticate(ctx, token)
	if err != nil {
		return "", time.Time{}, err
	}
	b := make([]byte, 32)
	rand.Read(b)
	id = base64.RawURLEncoding.EncodeToString(b)
	now := e.clock()
	s := &hitl.InboxSession{IDHash: hashToken(id), KeyID: p.KeyID, CreatedAt: now, ExpiresAt: now.Add(InboxSessionTTL)}
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		if _, err := tx.DeleteExpiredInboxSessions(now); err != nil {
			return err
		}
		return tx.InsertInboxSession(s)
	})
	if err != nil {
		return "", time.Time{}, err
	}
	e.log.Info("signed in to the inbox", "key_id", p.KeyID, "name", p.Name)
	return id, s.ExpiresAt, nil
}

// AuthenticateSession returns the principal of an inbox session: EUnauthorized when there is
// none with that id, or it has expired, ended at sign-out, or its key was revoked. The store is
// asked each time, so a session that ends on one node ends on every node at once.
func (e *Engine) AuthenticateSession(ctx context.Context, id string) (*hitl.Principal, error) {
	if id == "" {
		return nil, hitl.Errorf(hitl.EUnauthorized, "not signed in")
	}
	k, err := e.store.InboxSessionKey(ctx, hashToken(id), e.clock())
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, hitl.Errorf(hitl.EUnauthorized, "the inbox session has ended: sign in again")
	}
	if err != nil {
		return nil, err
	}
	return k.Principal(), nil
}

// SignOut ends an inbox session for every browser and node that holds its id. Other sessions
// of the same key go on: each sign-in is ended by its own sign-out, all of them by revoking the
// key. Ending a session that has already ended is no error.
func (e *Engine) SignOut(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteInboxSession(hashToken(id)) })
	if err != nil && hitl.ErrorCode(err) != hitl.ENotFound {
		return err
	}
	return nil
}
