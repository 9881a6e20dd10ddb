package engine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/loops"
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
	id = newSessionID()
	now := e.clock()
	s := &hitl.InboxSession{IDHash: hashToken(id), KeyID: p.KeyID, CreatedAt: now, ExpiresAt: now.Add(InboxSessionTTL)}
	err = e.store.Update(ctx, func(tx hitl.Tx) error { return startInboxSession(tx, s, now) })
	if err != nil {
		return "", time.Time{}, err
	}
	e.log.Info("signed in to the inbox", "key_id", p.KeyID, "name", p.Name)
	return id, s.ExpiresAt, nil
}

// newSessionID is a new inbox session's id: 256 random bits.
func newSessionID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// startInboxSession stores a new inbox session, and sweeps away those already expired.
func startInboxSession(tx hitl.Tx, s *hitl.InboxSession, now time.Time) error {
	if _, err := tx.DeleteExpiredInboxSessions(now); err != nil {
		return err
	}
	return tx.InsertInboxSession(s)
}

// AuthenticateSession returns the principal of an inbox session: EUnauthorized when there is
// none with that id, or it has expired, ended at sign-out, or its key was revoked. The store is
// asked each time, so a session that ends on one node ends on every node at once.
func (e *Engine) AuthenticateSession(ctx context.Context, id string) (*hitl.Principal, error) {
	if id == "" {
		return nil, hitl.Errorf(hitl.EUnauthorized, "not signed in")
	}
	hash := hashToken(id)
	k, err := e.store.InboxSessionKey(ctx, hash, e.clock())
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, hitl.Errorf(hitl.EUnauthorized, "the inbox session has ended: sign in again")
	}
	if err != nil {
		return nil, err
	}
	p := k.Principal()
	p.InboxSession = hash
	return e.withDelegations(ctx, p)
}

// SignOut ends an inbox session for every browser and node that holds its id. Other sessions
// of the same key go on: each sign-in is ended by its own sign-out, all of them by revoking the
// key. Ending a session that has already ended is no error.
func (e *Engine) SignOut(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	hash := hashToken(id)
	err := e.store.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteInboxSession(hash) })
	if err != nil && hitl.ErrorCode(err) != hitl.ENotFound {
		return err
	}
	e.hub.EndInboxSession(hash) // other nodes end theirs at their next check
	return nil
}

// inboxStreamCheck is how often a node checks that the inbox sessions of its open streams
// still hold: a stream outlives its session's sign-out on another node, or its expiry, by at
// most this long. (A revoked key's streams end at once, through its event.)
const inboxStreamCheck = 3 * time.Second

// checkInboxStreams ends the streams whose inbox session has ended, until ctx ends.
func (e *Engine) checkInboxStreams(ctx context.Context) {
	loops.Every(ctx, inboxStreamCheck, func(ctx context.Context) {
		for _, hash := range e.hub.InboxSessions() {
			_, err := e.store.InboxSessionKey(ctx, hash, e.clock())
			switch {
			case hitl.ErrorCode(err) == hitl.ENotFound:
				e.hub.EndInboxSession(hash)
			case err != nil && ctx.Err() == nil:
				e.log.Warn("checking the inbox sessions of open streams failed", "err", err)
			}
		}
	})
}
