package email_test

import (
	"context"
	"encoding/base64"
	"net/mail"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/email"
	"github.com/hitl-dev/hitl/internal/mailtest"
)

// replyTo is the reply address of the person's copy of the inquiry.
func (w *world) replyTo(t *testing.T, inq *hitl.Inquiry) string {
	t.Helper()
	return "reply+" + w.link(t, inq, "ada").Token + "@" + mailDomain
}

// answered checks the inquiry was answered by Ada with want.
func (w *world) answered(t *testing.T, id int64, want, comment string) {
	t.Helper()
	inq := w.inquiry(t, id)
	got := ""
	if inq.Comment != nil {
		got = *inq.Comment
	}
	if inq.Status != hitl.StatusResponded || inq.RespondedBy == nil || *inq.RespondedBy != "ada" || string(inq.Response) != want || got != comment {
		t.Fatalf("the inquiry is %s by %v with %s (comment %q); want answered by ada with %s (comment %q)", inq.Status, inq.RespondedBy, inq.Response, got, want, comment)
	}
	w.relay.Nothing(t) // an accepted answer needs no explanation
}

// explained checks the sender got a reply in the thread of their mail that says each of wants,
// and that the inquiry is still as it was.
func (w *world) explained(t *testing.T, to string, wants ...string) *mailtest.Received {
	t.Helper()
	got := w.relay.Next(t)
	if len(got.To) != 1 || got.To[0] != to {
		t.Errorf("the explanation went to %v; want %s", got.To, to)
	}
	if got.Subject != "Re: [hitl] question" || got.Header.Get("In-Reply-To") != "<reply-1@example.com>" ||
		!strings.HasSuffix(got.Header.Get("References"), "<reply-1@example.com>") || got.Header.Get("Auto-Submitted") != "auto-replied" {
		t.Errorf("the explanation is not an automatic reply in the thread: subject %q, In-Reply-To %q, References %q, Auto-Submitted %q",
			got.Subject, got.Header.Get("In-Reply-To"), got.Header.Get("References"), got.Header.Get("Auto-Submitted"))
	}
	for _, want := range append(wants, "Your reply was not recorded", "The inbox: "+w.srv.URL+"/") {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, got.Text)
		}
	}
	return got
}

func (w *world) pending(t *testing.T, id int64) {
	t.Helper()
	if inq := w.inquiry(t, id); inq.Status != hitl.StatusPending {
		t.Fatalf("the inquiry is %s with %s; want it still pending", inq.Status, inq.Response)
	}
}

func TestAnswerByReply(t *testing.T) {
	w := newWorld(t)
	addr := w.startReplies(t)
	// send sends a plain-text reply from an address (the envelope's and the From header's).
	send := func(t *testing.T, from, to, body string) {
		t.Helper()
		envelope := from
		if a, err := mail.ParseAddress(from); err == nil {
			envelope = a.Address
		}
		if err := mailtest.Send(t, addr, envelope, to, replyMail(from, to, body)); err != nil {
			t.Fatalf("the reply was refused: %v", err)
		}
	}
	approval := func() *hitl.Inquiry {
		return w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	}

	t.Run("approve with a comment above the quoted message", func(t *testing.T) {
		inq := approval()
		send(t, "Ada Lovelace <ada@example.com>", w.replyTo(t, inq),
			"Approve.\nLooks good, ship it.\n\nOn Mon, 23 Nov 2026 at 10:00, hitl <hitl@hitl.test> wrote:\n> Ship it?\n> reject\n")
		// The comment is the answer's comment, as every way of answering sets it, and stays
		// in the approval's answer, where its schema has it.
		w.answered(t, inq.ID, `{"approved":true,"comment":"Looks good, ship it."}`, "Looks good, ship it.")
	})

	t.Run("an option by its number, from a multipart reply with an attachment", func(t *testing.T) {
		inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Which region?", Options: []hitl.Option{{Value: "eu-west-1"}, {Value: "us-east-1"}}})
		to := w.replyTo(t, inq)
		body := base64.StdEncoding.EncodeToString([]byte("2\r\nclosest to the users\r\n\r\n-- \r\nAda\r\n"))
		msg := "From: ada@example.com\nTo: " + to + "\nSubject: Re: [hitl] question\nMessage-ID: <reply-1@example.com>\nMIME-Version: 1.0\n" +
			"Content-Type: multipart/mixed; boundary=XX\n\n--XX\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" + body +
			"\n--XX\nContent-Type: text/plain; name=notes.txt\nContent-Disposition: attachment; filename=notes.txt\n\n1\n--XX--\n"
		if err := mailtest.Send(t, addr, "ada@example.com", to, msg); err != nil {
			t.Fatal(err)
		}
		w.answered(t, inq.ID, `"us-east-1"`, "closest to the users")
	})

	t.Run("JSON for a schema", func(t *testing.T) {
		inq := w.ask(t, &hitl.InquiryRequest{Prompt: "How many replicas?", RequestType: hitl.RequestInput,
			ResponseSchema: mustJSON(t, map[string]any{"type": "object", "properties": map[string]any{"replicas": map[string]any{"type": "integer", "minimum": 1}}, "required": []string{"replicas"}})})
		send(t, "ada@example.com", w.replyTo(t, inq), "{\"replicas\": 3}\n\n> How many replicas?\n")
		w.answered(t, inq.ID, `{"replicas":3}`, "")
	})

	t.Run("an HTML-only reply", func(t *testing.T) {
		inq := approval()
		to := w.replyTo(t, inq)
		msg := "From: ada@example.com\nTo: " + to + "\nSubject: Re: [hitl] question\nMessage-ID: <reply-1@example.com>\nMIME-Version: 1.0\n" +
			"Content-Type: text/html; charset=utf-8\n\n<html><head><style>p{}</style></head><body><div dir=\"ltr\">Reject<br>too risky &amp; late</div>" +
			"<div class=\"gmail_quote\"><div>On Mon, 23 Nov 2026 at 10:00, hitl &lt;hitl@hitl.test&gt; wrote:</div><blockquote>approve</blockquote></div></body></html>\n"
		if err := mailtest.Send(t, addr, "ada@example.com", to, msg); err != nil {
			t.Fatal(err)
		}
		w.answered(t, inq.ID, `{"approved":false,"comment":"too risky \u0026 late"}`, "too risky & late")
	})

	t.Run("from another address", func(t *testing.T) {
		inq := approval()
		send(t, "mallory@example.com", w.replyTo(t, inq), "approve\n")
		w.pending(t, inq.ID)
		got := w.explained(t, "mallory@example.com", "it came from mallory@example.com", "only the address the question was sent to may answer it")
		if strings.Contains(got.Text, "Ship it?") {
			t.Errorf("the explanation to a stranger shows the question:\n%s", got.Text)
		}
	})

	t.Run("from a person without an address", func(t *testing.T) {
		inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
		l, err := w.srv.Admin.CreateAnswerLink(context.Background(), inq.ID, &hitl.AnswerLinkRequest{For: "bob"})
		if err != nil {
			t.Fatal(err)
		}
		to := "reply+" + l.Token + "@" + mailDomain
		if err := mailtest.Send(t, addr, "bob@example.com", to, replyMail("undisclosed-recipients:;", to, "approve\n")); err != nil {
			t.Fatal(err)
		}
		w.pending(t, inq.ID)
		w.explained(t, "bob@example.com", "it came from no readable address")
	})

	t.Run("an answer that is not one", func(t *testing.T) {
		inq := approval()
		send(t, "ada@example.com", w.replyTo(t, inq), "maybe later\n")
		w.pending(t, inq.ID)
		w.explained(t, "ada@example.com", `"maybe later", is not an answer`, "write approve or reject on the first line")
	})

	t.Run("an answer the schema refuses lists the problems", func(t *testing.T) {
		inq := w.ask(t, &hitl.InquiryRequest{Prompt: "How many replicas?", RequestType: hitl.RequestInput,
			ResponseSchema: mustJSON(t, map[string]any{"type": "object", "properties": map[string]any{"replicas": map[string]any{"type": "integer", "minimum": 1}, "zone": map[string]any{"type": "string"}}, "required": []string{"replicas", "zone"}})})
		send(t, "ada@example.com", w.replyTo(t, inq), `{"replicas": 0}`)
		w.pending(t, inq.ID)
		got := w.explained(t, "ada@example.com", "- replicas: must be at least 1\n", "- zone: is required\n", "reply again with the answer as JSON")
		if strings.Contains(got.Text, "(and 1 more)") {
			t.Errorf("the problems are listed twice:\n%s", got.Text)
		}
	})

	t.Run("a closed inquiry", func(t *testing.T) {
		inq := approval()
		to := w.replyTo(t, inq)
		ada, _ := w.srv.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
		if _, err := ada.Respond(context.Background(), inq.ID, mustJSON(t, map[string]any{"approved": false}), "in the inbox"); err != nil {
			t.Fatal(err)
		}
		send(t, "ada@example.com", to, "approve\n")
		w.explained(t, "ada@example.com", "this question is closed. Answered by ada: reject (in the inbox)")
		if inq := w.inquiry(t, inq.ID); string(inq.Response) != `{"approved":false}` {
			t.Errorf("the answer changed to %s", inq.Response)
		}
	})

	t.Run("an unknown token", func(t *testing.T) {
		send(t, "ada@example.com", "reply+v1.e30.forged@"+mailDomain, "approve\n")
		w.explained(t, "ada@example.com", "this answer link is not valid.", "Answer in the inbox instead.")
	})

	t.Run("a machine's message is neither answered nor explained", func(t *testing.T) {
		inq := approval()
		to := w.replyTo(t, inq)
		msg := strings.Replace(replyMail("ada@example.com", to, "approve\n"), "MIME-Version", "Auto-Submitted: auto-replied\nMIME-Version", 1)
		if err := mailtest.Send(t, addr, "ada@example.com", to, msg); err != nil {
			t.Fatal(err)
		}
		if err := mailtest.Send(t, addr, "", to, replyMail("ada@example.com", to, "approve\n")); err != nil { // a bounce
			t.Fatal(err)
		}
		w.pending(t, inq.ID)
		w.relay.Nothing(t)
	})
}

// The reply server is no relay and takes no more than MaxReplyBytes.
func TestReplyServerRefusesRelayingAndBigMessages(t *testing.T) {
	w := newWorld(t)
	addr := w.startReplies(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	for _, to := range []string{"someone@elsewhere.example", "reply+token@elsewhere.example", "postmaster@" + mailDomain, "reply+@" + mailDomain} {
		if err := mailtest.Send(t, addr, "ada@example.com", to, "Subject: x\n\nx\n"); mailtest.Code(err) != 550 {
			t.Errorf("mail for %s: %v; want 550", to, err)
		}
	}
	to := w.replyTo(t, inq)
	big := replyMail("ada@example.com", to, "approve\n"+strings.Repeat("> quoted history quoted history quoted history\n", email.MaxReplyBytes/40))
	if err := mailtest.Send(t, addr, "ada@example.com", to, big); mailtest.Code(err) != 552 {
		t.Errorf("a %d-byte reply: %v; want 552", len(big), err)
	}
	w.pending(t, inq.ID)
	w.relay.Nothing(t)
}
