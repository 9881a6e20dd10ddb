package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Answer links let a person answer one inquiry from an email or a chat message without an API
// key: the token names the inquiry, who answers and until when, and is signed with a secret
// that every node shares (kept in the store). Opening a link never answers; only the form it
// shows does (bots that fetch links must not answer).

const (
	linkPrefix     = "v1."
	defaultLinkTTL = 7 * 24 * time.Hour
	maxLinkTTL     = 30 * 24 * time.Hour
	minLinkTTL     = time.Minute
)

// linkClaims is what a link token carries.
type linkClaims struct {
	Inquiry int64    `json:"i"`
	For     string   `json:"f"`
	Groups  []string `json:"g,omitempty"`
	Expires int64    `json:"e"` // Unix seconds
}

func (e *Engine) signLink(payload string) string {
	m := hmac.New(sha256.New, []byte(e.linkSecret))
	m.Write([]byte(linkPrefix + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CreateAnswerLink signs a link for one person to answer one pending inquiry. Admins may make
// one for any inquiry, agents for those they asked; the person must be one who may answer it.
func (e *Engine) CreateAnswerLink(ctx context.Context, p *hitl.Principal, id int64, req *hitl.AnswerLinkRequest) (*hitl.AnswerLink, error) {
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := mayLink(p, inq); err != nil {
		return nil, err
	}
	var bad problems
	if !namePattern.MatchString(req.For) {
		bad.add("/for", "must name who answers: 1 to 200 characters of letters, digits, . _ @ -")
	}
	for i, g := range req.Groups {
		if !namePattern.MatchString(g) {
			bad.add(fmt.Sprintf("/groups/%d", i), "must be 1 to 200 characters of letters, digits, . _ @ -")
		}
	}
	ttl := defaultLinkTTL
	if req.TTLSeconds != 0 {
		ttl = time.Duration(req.TTLSeconds) * time.Second
		if ttl < minLinkTTL || ttl > maxLinkTTL {
			bad.add("/ttl_seconds", "must be from %d to %d", int(minLinkTTL.Seconds()), int(maxLinkTTL.Seconds()))
		}
	}
	if err := bad.err("invalid answer link"); err != nil {
		return nil, err
	}
	if inq.Status.Final() {
		return nil, conflictFinal(inq)
	}
	who := linkPrincipal(req.For, req.Groups)
	if err := mayAnswer(who, inq); err != nil {
		return nil, hitl.Errorf(hitl.EInvalid, "%s may not answer inquiry %d: it is assigned to %s", req.For, id, hitl.AssigneesInWords(inq.AssignedTo))
	}
	exp := e.clock().Add(ttl).Truncate(time.Second)
	return &hitl.AnswerLink{Token: e.answerToken(id, req.For, req.Groups, exp), InquiryID: id, For: req.For, ExpiresAt: exp}, nil
}

func linkPrincipal(name string, groups []string) *hitl.Principal {
	return &hitl.Principal{Name: name, Roles: []string{hitl.RoleResponder}, Groups: groups}
}

// OpenAnswerLink checks a link token and returns who it lets answer and the inquiry as it is
// now. A token that is malformed, altered or signed elsewhere is EUnauthorized, as is one that
// has expired (with its own message).
func (e *Engine) OpenAnswerLink(ctx context.Context, token string) (*hitl.Principal, *hitl.Inquiry, error) {
	invalid := hitl.Errorf(hitl.EUnauthorized, "this answer link is not valid")
	rest, ok := strings.CutPrefix(token, linkPrefix)
	if !ok || len(token) > 4096 {
		return nil, nil, invalid
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(e.signLink(payload))) {
		return nil, nil, invalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var c linkClaims
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Inquiry <= 0 || c.For == "" {
		return nil, nil, invalid
	}
	if !e.clock().Before(time.Unix(c.Expires, 0)) {
		return nil, nil, hitl.Errorf(hitl.EUnauthorized, "this answer link has expired; ask for a new one")
	}
	who := linkPrincipal(c.For, c.Groups)
	inq, err := e.store.Inquiry(ctx, c.Inquiry)
	if err != nil {
		return nil, nil, err
	}
	return who, inq, nil
}

// MayAnswer tells whether the principal may answer the inquiry (nil), or why not.
func (e *Engine) MayAnswer(p *hitl.Principal, inq *hitl.Inquiry) error { return mayAnswer(p, inq) }

// MayDecline tells whether p may decline inq (see Decline), for the pages that offer it.
func (e *Engine) MayDecline(p *hitl.Principal, inq *hitl.Inquiry) error { return mayDecline(p, inq) }
