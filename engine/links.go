package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// Answer links let a person answer one inquiry from an email or a chat message without an API
// key: the token names the inquiry, who answers, who made the link for them and until when,
// and is signed with a secret that every node shares (kept in the store). Opening a link never
// answers; only the form it shows does (bots that fetch links must not answer).
//
// A link lends no power of its own. Who it lets answer, with which groups, is read from hitl's
// records each time it is opened (recordedPerson), never from the token or the request that
// made it; so a link stops working when its person's keys are revoked, when the person is
// deleted or no longer has the address the server sent it to, and when its maker may no longer
// relay. A link made for someone else is a relay: its maker is recorded as relayed_by on the
// answer, and separation of duties holds the maker to its rules as it holds the person.

const (
	// linkPrefix is the version of the tokens made now; legacyLinkPrefix that of the tokens
	// made before links recorded their maker, which still answer when the server sent them.
	linkPrefix       = "v2."
	legacyLinkPrefix = "v1."
	defaultLinkTTL   = 7 * 24 * time.Hour
	maxLinkTTL       = 30 * 24 * time.Hour
	minLinkTTL       = time.Minute
	maxLinkToken     = 4096
)

// linkClaims is what a link token carries.
type linkClaims struct {
	Inquiry int64  `json:"i"`
	For     string `json:"f"`
	// By made the link for For and carries their answer; "" when the server made it for one of
	// its messages, or For made it for themselves.
	By string `json:"b,omitempty"`
	// Channel and Address are where the server sent the link: it answers only while the person
	// is still reached there.
	Channel string `json:"c,omitempty"`
	Address string `json:"a,omitempty"`
	Expires int64  `json:"e"` // Unix seconds
}

func (e *Engine) signLink(prefix, payload string) string {
	m := hmac.New(sha256.New, []byte(e.linkSecret))
	m.Write([]byte(prefix + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// linkToken signs an answer link's claims.
func (e *Engine) linkToken(c linkClaims) string { return e.signedToken(linkPrefix, c) }

// signedToken is a token of the link secret: prefix (its kind and version, which the
// signature covers), the claims as base64url JSON, a dot and the signature.
func (e *Engine) signedToken(prefix string, claims any) string {
	raw, _ := json.Marshal(claims)
	payload := base64.RawURLEncoding.EncodeToString(raw)
	return prefix + payload + "." + e.signLink(prefix, payload)
}

// openToken reads the claims of a token signedToken made with prefix into claims; false when
// the token is not one (another prefix, too long, altered, signed elsewhere, not JSON).
func (e *Engine) openToken(prefix, token string, claims any) bool {
	rest, ok := strings.CutPrefix(token, prefix)
	if !ok || len(token) > maxLinkToken {
		return false
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(e.signLink(prefix, payload))) {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	return err == nil && json.Unmarshal(raw, claims) == nil
}

// CreateAnswerLink signs a link for one person to answer one pending inquiry. A link answers in
// its person's name, so making one is relaying: it needs the relay role or admin, and a caller
// who sees the inquiry. The person must be one hitl knows who may answer it by hitl's records,
// and the inquiry's asker may never make one for someone else. One link is not a relay: the
// one that the key which asked the inquiry makes for itself, when MayAnswerInClient lets it be
// asked in its own client (answer_in_client, for a question no form can ask): the link lends
// it nothing it could not do with its key.
func (e *Engine) CreateAnswerLink(ctx context.Context, p *hitl.Principal, id int64, req *hitl.AnswerLinkRequest) (*hitl.AnswerLink, error) {
	inq, err := e.store.Inquiry(ctx, id)
	if err != nil {
		return nil, err
	}
	if own := req.For == p.Name && inq.CreatedBy == p.Name && p.Via == "" && CanAnswer(p); own && !mayRelay(p) {
		if err := MayAnswerInClient(p, inq); err != nil {
			return nil, err
		}
	} else if !mayRelay(p) {
		return nil, unseen(p, inq, forbidden("making answer links needs the relay role or admin: a link answers in its person's name (or the key that asked, for itself, when it may answer)"))
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
	c := linkClaims{Inquiry: id, For: req.For, Expires: e.clock().Add(ttl).Truncate(time.Second).Unix()}
	if req.For != p.Name {
		c.By = p.Name
	}
	// As for a relayed answer: the maker acts for the person, so it needs not see the inquiry,
	// but to a maker that does not see it an inquiry its person may not answer does not exist.
	who, err := e.linkHolder(ctx, &c)
	if err == nil {
		err = mayAnswerAs(who, inq)
	}
	if err = unseen(p, inq, err); hitl.ErrorCode(err) == hitl.EForbidden {
		return nil, hitl.Errorf(hitl.EInvalid, "no link for %s: %s", req.For, hitl.ErrorMessage(err))
	} else if err != nil {
		return nil, err
	}
	if err := carriedByAsker(inq, c.By); err != nil {
		return nil, err
	}
	if err := e.Separated(ctx, inq, who.Name, c.By); err != nil {
		return nil, err
	}
	for i, g := range req.Groups {
		if !slices.Contains(who.Groups, g) {
			bad.add(fmt.Sprintf("/groups/%d", i), "%s is not in the group %s by hitl's records; a link carries the groups of its person's keys, not those asked for", req.For, g)
		}
	}
	if err := bad.err("invalid answer link"); err != nil {
		return nil, err
	}
	exp := time.Unix(c.Expires, 0)
	return &hitl.AnswerLink{Token: e.linkToken(c), InquiryID: id, For: req.For, RelayedBy: c.By, ExpiresAt: exp}, nil
}

// linkHolder is whom a link's claims let answer, by hitl's records as they are now, or why
// nobody: the person must still be reached at the address the server sent the link to, must
// still be a person hitl knows who may answer (recordedPerson), and the link's maker must still
// be allowed to relay.
func (e *Engine) linkHolder(ctx context.Context, c *linkClaims) (*hitl.Principal, error) {
	if c.Channel == hitl.ChannelWebPush {
		if err := e.devicesHolder(ctx, c); err != nil {
			return nil, err
		}
	} else if c.Address != "" {
		person, err := e.store.Person(ctx, c.For)
		if hitl.ErrorCode(err) == hitl.ENotFound {
			return nil, forbidden("%s is no longer among hitl's people, so what was sent to them no longer answers", c.For)
		}
		if err != nil {
			return nil, err
		}
		if person.Address(c.Channel) != c.Address {
			return nil, forbidden("it was sent to %s, which is no longer %s's address", c.Address, c.For)
		}
	}
	who, err := e.recordedPerson(ctx, c.For)
	if err != nil {
		return nil, err
	}
	if c.By != "" {
		roles, _, _, err := e.keysOf(ctx, c.By)
		if err != nil {
			return nil, err
		}
		if !mayRelay(&hitl.Principal{Roles: roles}) {
			return nil, forbidden("%s made it, and %s may no longer relay answers", c.By, c.By)
		}
	}
	who.Via = c.By
	return who, nil
}

// OpenAnswerLink checks a link token and returns who it lets answer and the inquiry as it is
// now. A token that is malformed, altered or signed elsewhere is EUnauthorized, as is one that
// has expired, or whose person or maker no longer holds the power to answer (each with its own
// message).
func (e *Engine) OpenAnswerLink(ctx context.Context, token string) (*hitl.Principal, *hitl.Inquiry, error) {
	c, err := e.readLink(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	if e.expired(c) {
		return nil, nil, hitl.Errorf(hitl.EUnauthorized, "this answer link has expired; ask for a new one")
	}
	return e.openLink(ctx, c, "this answer link")
}

func (e *Engine) expired(c *linkClaims) bool { return !e.clock().Before(time.Unix(c.Expires, 0)) }

// openLink loads the inquiry of a link that is signed and not expired, and who it lets answer;
// what names the link in the message that says it no longer works.
func (e *Engine) openLink(ctx context.Context, c *linkClaims, what string) (*hitl.Principal, *hitl.Inquiry, error) {
	inq, err := e.store.Inquiry(ctx, c.Inquiry)
	if err != nil {
		return nil, nil, err
	}
	who, err := e.linkHolder(ctx, c)
	if err == nil && !canSee(who, inq) {
		// The person's groups changed since: the inquiry is no longer theirs to see.
		err = mayAnswerAs(who, inq)
	}
	if hitl.ErrorCode(err) == hitl.EForbidden {
		return nil, nil, hitl.Errorf(hitl.EUnauthorized, "%s no longer works: %s", what, hitl.ErrorMessage(err))
	}
	if err != nil {
		return nil, nil, err
	}
	return who, inq, nil
}

// readLink checks a token's signature and reads its claims. A token of the earlier version
// carried its groups and not its maker: it is read only when it is the link of one of the
// server's own messages (so the server made it), with that message's channel and address.
func (e *Engine) readLink(ctx context.Context, token string) (*linkClaims, error) {
	invalid := hitl.Errorf(hitl.EUnauthorized, "this answer link is not valid")
	prefix := linkPrefix
	if strings.HasPrefix(token, legacyLinkPrefix) {
		prefix = legacyLinkPrefix
	}
	var c linkClaims
	if !e.openToken(prefix, token, &c) || c.Inquiry <= 0 || c.For == "" {
		return nil, invalid
	}
	if prefix == linkPrefix {
		return &c, nil
	}
	n, err := e.sentNotification(ctx, c.Inquiry, func(n *hitl.Notification) bool { return n.AnswerToken == token })
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, hitl.Errorf(hitl.EUnauthorized, "this answer link was made by an earlier version of hitl, which did not record who made links; ask for a new one")
	}
	return &linkClaims{Inquiry: c.Inquiry, For: c.For, Channel: n.Channel, Address: n.Address, Expires: c.Expires}, nil
}

// sentNotification finds the newest message about the inquiry that the server made with an
// answer link and that match accepts; nil when there is none.
func (e *Engine) sentNotification(ctx context.Context, id int64, match func(*hitl.Notification) bool) (*hitl.Notification, error) {
	ds, _, err := e.store.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: id, Page: hitl.Page{Limit: 1000}})
	if err != nil {
		return nil, err
	}
	for _, d := range ds { // newest first: a reminder's answer link outlives the first message's
		if d.InquiryID == nil || *d.InquiryID != id {
			continue
		}
		var n hitl.Notification
		if json.Unmarshal(d.Payload, &n) == nil && n.AnswerToken != "" && match(&n) {
			return &n, nil
		}
	}
	return nil, nil
}

// MayAnswer tells whether the principal may answer the inquiry (nil), or why not.
func (e *Engine) MayAnswer(p *hitl.Principal, inq *hitl.Inquiry) error { return mayAnswer(p, inq) }

// MayDecline tells whether p may decline inq (see Decline), for the pages that offer it.
func (e *Engine) MayDecline(p *hitl.Principal, inq *hitl.Inquiry) error { return mayDecline(p, inq) }
