package email

import (
	"encoding/json"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

func TestUnquotedKeepsOnlyWhatThePersonWrote(t *testing.T) {
	for in, want := range map[string]string{
		"approve\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, hitl <hitl@hitl.test> wrote:\r\n> Ship it?\r\n": "approve",
		"yes\nOn Mon, 23 Nov 2026 at 10:00 hitl <hitl@hitl.test>\nwrote:\n> q\n":                      "yes",
		"> quoted first\n2\n> more\n":                                               "2",
		"reject\nnot now\n\n-- \nAda\nCTO\n":                                        "reject\nnot now",
		"no\n\n-----Original Message-----\nFrom: hitl\n":                            "no",
		"approve\n\n________________________________\nFrom: hitl\n":                 "approve",
		"oui\n\nLe lun. 23 nov. 2026 à 10:00, hitl <hitl@hitl.test> a écrit :":      "oui",
		"ja\n\nAm Mo., 23. Nov. 2026 um 10:00 Uhr schrieb hitl <hitl@hitl.test>:\n": "ja",
		"ja\nOp ma 23 nov 2026 om 10:00 schreef hitl <\nhitl@hitl.test>:\n":         "ja",
		"reject\nnot now\n--\nAda\n":                                                "reject\nnot now",
		"approve\n\nSent from my iPhone\n\n> q\n":                                   "approve",
		"approve\nSent from my phone while I was travelling, sorry for the typos":   "approve\nSent from my phone while I was travelling, sorry for the typos",
		"yes\n*From:* hitl <hitl@hitl.test>\n*Sent:* Monday\n*To:* Ada\n":           "yes",
		"Von: Ada\nok\n": "Von: Ada\nok", // a From: line alone is no header block
		"no\nDe : hitl\nEnvoyé : lundi\nÀ : Ada\nObjet : Ship it?\n": "no",
		"\n\n  \n": "",
		"approve\n---- On Mon, 24 Nov 2026 10:00:00 +0000 Ada <ada@example.com> wrote ----\nShip it?\n": "approve",
		"approve\n\n2026年11月24日(月) 10:00 Ada <ada@example.com>:\n\n> Ship it?\n":                        "approve",
		"approve\n2026年11月24日(月) 10:00 Ada <\nada@example.com>:\n> Ship it?\n":                          "approve",
		"2026年11月24日に出荷:\nyes\n":                                                                        "2026年11月24日に出荷:\nyes", // a date and a colon alone are no attribution
	} {
		if got := unquoted(in); got != want {
			t.Errorf("unquoted(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestWithoutAnswerLinks(t *testing.T) {
	links := answerLinks("https://hitl.example.com/base/", "hitl.example.com")
	token := "v1.eyJpIjoxLCJmIjoiYWRhIn0.5h5obSrIl_t0gp-uaf25wOICHGJlOKS66yv9T1neyQE"
	for in, want := range map[string]string{
		"see https://hitl.example.com/base/a/" + token + "?option=approve, thanks":                            "see, thanks",
		"(<HTTPS://HITL.EXAMPLE.COM/base/a/anything>) and [hitl.example.com/a/" + token + "]":                 "and",
		"/a/" + token + "\nbare " + token + " too":                                                            "bare too",
		"mine is reply+12.abcdefgh@hitl.example.com.":                                                         "mine is.",
		"kept: https://example.com/a/v1.2/docs reply+x@example.org https://hitl.example.com/base/inquiries/1": "kept: https://example.com/a/v1.2/docs reply+x@example.org https://hitl.example.com/base/inquiries/1",
		"{\"comment\": \"https://other.example/a/" + token + "\"}":                                            "{\"comment\": \"\"}",
	} {
		if got := withoutAnswerLinks(in, links); got != want {
			t.Errorf("withoutAnswerLinks(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestHTMLTextLeavesOutQuotesAndMarkup(t *testing.T) {
	got := unquoted(shownHTML(t, `<html><head><title>t</title><style>p{color:red}</style></head><body><p>Approve &amp; go</p><div>second<br/>third</div><script>x()</script><blockquote><p>reject</p></blockquote></body></html>`))
	if want := "Approve & go\n\nsecond\nthird"; got != want {
		t.Errorf("shownHTML = %q; want %q", got, want)
	}
	// Inline markup keeps the spaces around it.
	if got, want := shownHTML(t, "<p>Release <b>Aurora</b>  now,\n <i>please</i> </p>"), "\nRelease Aurora now, please\n"; got != want {
		t.Errorf("shownHTML = %q; want %q", got, want)
	}
}

// shownHTML is the text of an HTML part as shown.
func shownHTML(t *testing.T, doc string) string {
	t.Helper()
	h, err := readHTML(doc)
	if err != nil {
		t.Fatalf("readHTML(%q): %v", doc, err)
	}
	return h.shown
}

func TestAnswerFromReply(t *testing.T) {
	approval := &hitl.Inquiry{RequestType: hitl.RequestApproval,
		ResponseSchema: json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"]}`)}
	options := &hitl.Inquiry{RequestType: hitl.RequestSelection, Options: []hitl.Option{{Value: "a, b", Label: "Both"}, {Value: "c"}}}
	several := &hitl.Inquiry{RequestType: hitl.RequestSelection, Multiple: true, Options: []hitl.Option{{Value: "x"}, {Value: "y"}, {Value: "z"}}}
	text := &hitl.Inquiry{RequestType: hitl.RequestClarification, ResponseSchema: json.RawMessage(`{"type":"string","minLength":1}`)}
	number := &hitl.Inquiry{RequestType: hitl.RequestInput, ResponseSchema: json.RawMessage(`{"type":"integer"}`)}
	yesno := &hitl.Inquiry{RequestType: hitl.RequestInput, ResponseSchema: json.RawMessage(`{"type":"boolean"}`)}
	object := &hitl.Inquiry{RequestType: hitl.RequestInput, ResponseSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}
	for _, tc := range []struct {
		name     string
		inq      *hitl.Inquiry
		text     string
		response string
		comment  string
		problem  string
	}{
		{"approve", approval, "Approve", `{"approved":true}`, "", ""},
		{"yes with a comment on the line", approval, "Yes, go ahead", `{"approved":true,"comment":"go ahead"}`, "go ahead", ""},
		{"no with a comment below", approval, "no\nwe freeze on Fridays", `{"approved":false,"comment":"we freeze on Fridays"}`, "we freeze on Fridays", ""},
		{"JSON for an approval", approval, `{"approved": false}`, `{"approved": false}`, "", ""},
		{"neither", approval, "hmm", "", "", `"hmm", is not an answer`},
		{"nothing", approval, "  ", "", "", "has no answer in it"},
		{"an option by number", options, "2", `"c"`, "", ""},
		{"an option by its value with a comma", options, "a, b\nboth please", `"a, b"`, "both please", ""},
		{"an option by its label, any case", options, "both.", `"a, b"`, "", ""},
		{"no such option", options, "3", "", "", `"3" is not one of the options: write an option's value or its number, from 1 to 2`},
		{"several options", several, "1, z", `["x","z"]`, "", ""},
		{"several, one unknown", several, "x, w", "", "", `"w" is not one of the options`},
		{"text is the whole reply", text, "Use the blue one.\nThe red is out of stock.", `"Use the blue one.\nThe red is out of stock."`, "", ""},
		{"a number", number, "42\nroughly", `42`, "roughly", ""},
		{"not a number", number, "many", "", "", "enter a whole number"},
		{"yes for a boolean", yesno, "yes", `true`, "", ""},
		{"JSON for an object", object, "{\n  \"n\": 3\n}", "{\n  \"n\": 3\n}", "", ""},
		{"not JSON for an object", object, "three", "", "", "takes its answer as JSON, and your reply is not JSON (from line 1, column 2)."},
		{"JSON that breaks off", object, "{\"n\": tru", "", "", "your reply is not JSON (from line 1, column 9)."},
	} {
		req, problems := answerFromReply(tc.inq, tc.text)
		switch {
		case tc.problem != "":
			if req != nil || len(problems) == 0 || !strings.Contains(problems[0], tc.problem) {
				t.Errorf("%s: %v %q; want the problem %q", tc.name, req, problems, tc.problem)
			}
		case problems != nil || string(req.Response) != tc.response || req.Comment != tc.comment:
			t.Errorf("%s: %v %q; want %s with comment %q", tc.name, req, problems, tc.response, tc.comment)
		}
	}
}

func TestDeadlineWords(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC)
	at := now.Add(2 * time.Hour)
	inq := &hitl.Inquiry{TimeoutAt: &at, FallbackPolicy: hitl.FallbackFail}
	if got, want := deadlineWords(inq, now, time.UTC), "answer by 14:30 UTC, in 2 hours; if nobody answers by then, the agent is told nobody answered"; got != want {
		t.Errorf("deadlineWords = %q; want %q", got, want)
	}
	at = now.Add(50*time.Hour + 10*time.Minute)
	if got, want := deadlineWords(inq, now, time.UTC), "answer by 14:40 UTC (Wed 25 Nov), in 2 days;"; !strings.HasPrefix(got, want) {
		t.Errorf("deadlineWords = %q; want it to start %q", got, want)
	}
	if deadlineWords(&hitl.Inquiry{}, now, time.UTC) != "" {
		t.Error("an inquiry without a deadline has one in words")
	}
}

func TestSubjectIsBoundedOnARune(t *testing.T) {
	inq := &hitl.Inquiry{Prompt: strings.Repeat("é", 200)}
	got := subject(inq, ReasonEscalation)
	if !strings.HasPrefix(got, "Escalated: [hitl] éé") || len([]rune(got)) != maxSubjectRunes || !strings.HasSuffix(got, "é…") {
		t.Errorf("subject = %q", got)
	}
	inq = &hitl.Inquiry{Prompt: "Ship\n  it?", Status: hitl.StatusCancelled}
	if got := subject(inq, ReasonResolved); got != "Closed: [hitl] Ship it?" {
		t.Errorf("subject of a cancelled inquiry's notice = %q", got)
	}
}

// TestInvisibleCharactersDoNotSplitWords: characters that show nothing, which mail programs
// and pasted text leave inside words, are taken out before the reply is read.
func TestInvisibleCharactersDoNotSplitWords(t *testing.T) {
	msg, err := mail.ReadMessage(strings.NewReader("From: ada@example.com\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nappr\u200bove\r\nlooks go\u00adod\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	texts, err := readReply(msg, answerLinks("", ""))
	if err != nil || texts.shown != "approve\nlooks good" {
		t.Fatalf("the reply reads %q, %v; want the words without their invisible characters", texts.shown, err)
	}
}
