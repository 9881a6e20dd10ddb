package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
)

// Answer by email: a notification's Reply-To is reply+TOKEN@domain, and the token must fit an
// address's local part (at most 64 characters, RFC 5321) and survive mail systems that
// lowercase it. An answer link's token is too long for that, so the reply token is short: the
// inquiry and an HMAC of the inquiry and the person, in lowercase base32. It carries no expiry
// of its own: it stands for the answer link of the email notification made with it, which
// the reply server opens, so that link's expiry and groups hold for the reply too.

// replyMACBytes is how much of the HMAC a reply token keeps: 128 bits cannot be guessed.
const replyMACBytes = 16

var replyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// ReplyToken is the token of the reply address of an email to person about inquiry id:
// "<id>.<mac>", lowercase, about 30 characters.
func (e *Engine) ReplyToken(id int64, person string) string {
	m := hmac.New(sha256.New, []byte(e.linkSecret))
	m.Write([]byte("reply\x00" + strconv.FormatInt(id, 10) + "\x00" + person))
	return strconv.FormatInt(id, 10) + "." + strings.ToLower(replyEncoding.EncodeToString(m.Sum(nil)[:replyMACBytes]))
}

// OpenReply reads the token of a reply address, in a reply whose From header is from: it
// finds the email notification about the inquiry whose person the token was made for, and
// returns who answers (as that notification's answer link says, checked like any answer
// link: a reply answers only while the link would), the inquiry as it is now, and the address
// the email went to, which the reply must come from (see CheckReplySender). A token that is
// malformed or forged is EUnauthorized, as is one whose person may no longer answer; one for
// an inquiry that does not exist is ENotFound; a reply from another address is EForbidden.
func (e *Engine) OpenReply(ctx context.Context, token, from string) (*hitl.Principal, *hitl.Inquiry, string, error) {
	invalid := hitl.Errorf(hitl.EUnauthorized, "the address you replied to is not one of hitl's reply addresses")
	token = strings.ToLower(token)
	idText, _, ok := strings.Cut(token, ".")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 || len(token) > 100 {
		return nil, nil, "", invalid
	}
	if _, err := e.store.Inquiry(ctx, id); err != nil {
		return nil, nil, "", err
	}
	n, err := e.sentNotification(ctx, id, func(n *hitl.Notification) bool {
		return n.Channel == hitl.ChannelEmail && n.ReplyToken != "" && hmac.Equal([]byte(token), []byte(e.ReplyToken(id, n.Recipient)))
	})
	if err != nil {
		return nil, nil, "", err
	}
	if n == nil {
		return nil, nil, "", invalid
	}
	c, err := e.readLink(ctx, n.AnswerToken)
	if err != nil {
		return nil, nil, "", err
	}
	if e.expired(c) {
		return nil, nil, "", hitl.Errorf(hitl.EUnauthorized, "the question was sent too long ago to be answered by email")
	}
	who, inq, err := e.openLink(ctx, c, "answering this email")
	if err != nil {
		return nil, nil, "", err
	}
	if err := CheckReplySender(inq, n.Address, from); err != nil {
		return nil, nil, "", err
	}
	return who, inq, n.Address, nil
}

// CheckReplySender decides whether an email reply about inq, whose From header is from, may
// answer: only one from address, the one the question was sent to (in any case). The token
// is the credential; From is only what the message claims, not proof of who sent it, which is
// the receiving mail server's to judge. Any other address, or none, is EForbidden, with inq.
func CheckReplySender(inq *hitl.Inquiry, address, from string) error {
	if address != "" && strings.EqualFold(from, address) {
		return nil
	}
	if from == "" {
		from = "no readable address"
	}
	return &hitl.Error{Code: hitl.EForbidden, Inquiry: inq, Message: fmt.Sprintf(
		"it came from %s, and only the address the question was sent to may answer it by email", from)}
}
