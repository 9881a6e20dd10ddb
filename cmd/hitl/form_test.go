package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// cliInput runs the hitl command in-process with input on its stdin.
func cliInput(t *testing.T, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(input), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRespondForm answers through huh's accessible prompts, driven by piped input: one form
// per kind of schema, with invalid entries re-asked.
func TestRespondForm(t *testing.T) {
	admin, _ := startServer(t)
	t.Setenv("ACCESSIBLE", "1")
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		req   hitl.InquiryRequest
		input string
		want  string
	}{
		{"approval: a confirm and a comment", hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval}, "y\nLGTM\n", `{"approved":true,"comment":"LGTM"}`},
		{"selection, no comment", hitl.InquiryRequest{Prompt: "Which city?", Options: []hitl.Option{{Value: "oslo"}, {Value: "bergen", Label: "Bergen", Description: "rainy"}, {Value: "tromso"}}}, "2\n\n", `"bergen"`},
		{"multiple selection, no comment", hitl.InquiryRequest{Prompt: "Which days?", Multiple: true, Options: []hitl.Option{{Value: "fri"}, {Value: "sat"}, {Value: "sun"}}}, "1\n3\n0\n\n", `["fri","sun"]`},
		{"an integer within bounds, re-asked", hitl.InquiryRequest{Prompt: "How many seats?", ResponseSchema: json.RawMessage(`{"type":"integer","minimum":1,"maximum":10}`)}, "many\n42\n7\n", `7`},
		{"a string with a pattern, re-asked", hitl.InquiryRequest{Prompt: "Airport code?", ResponseSchema: json.RawMessage(`{"type":"string","pattern":"^[A-Z]{3}$","maxLength":3}`)}, "osl\nOSL\n", `"OSL"`},
		{"a boolean", hitl.InquiryRequest{Prompt: "Vegetarian?", ResponseSchema: json.RawMessage(`{"type":"boolean"}`)}, "n\n", `false`},
		{"a flat object, optional field left empty", hitl.InquiryRequest{Prompt: "Budget", ResponseSchema: json.RawMessage(`{"type":"object","required":["amount","currency"],"properties":{"amount":{"type":"number","minimum":0},"currency":{"enum":["EUR","USD"]},"note":{"type":"string","maxLength":50}}}`)}, "1200.5\n2\n\n", `{"amount":1200.5,"currency":"USD"}`},
		{"beyond a form: JSON, validated by the server", hitl.InquiryRequest{Prompt: "Guests", ResponseSchema: json.RawMessage(`{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}`)}, "not json\n[{\"name\":\"Ann\"}]\n", `[{"name":"Ann"}]`},
	} {
		inq, _, err := admin.CreateInquiry(ctx, &c.req, client.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		code, _, errOut := cliInput(t, c.input, "respond", fmt.Sprint(inq.ID))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		got, err := admin.Inquiry(ctx, inq.ID)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		json.Unmarshal(got.Response, &a)
		json.Unmarshal([]byte(c.want), &b)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: answered %s, want %s", c.name, got.Response, c.want)
		}
	}
	// A final inquiry is not asked again.
	p, _ := admin.Inquiries(ctx, client.ListOptions{Limit: 1})
	if code, _, errOut := cliInput(t, "y\n", "respond", fmt.Sprint(p.Data[0].ID)); code != exitError || !strings.Contains(errOut, "already answered") {
		t.Fatalf("answering a final inquiry: %d %q", code, errOut)
	}
	// Piped answers that run out never answer with a prompt's default, and a refused line
	// followed by the end of the input ends the form in words, not in a panic.
	for _, c := range []struct {
		name, input string
		req         hitl.InquiryRequest
	}{
		{"a selection, no input", "", hitl.InquiryRequest{Prompt: "Colour?", Options: []hitl.Option{{Value: "red"}, {Value: "green"}}}},
		{"an approval, no input", "", hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval}},
		{"a selection, a refused line, then nothing", "x\n", hitl.InquiryRequest{Prompt: "Colour?", Options: []hitl.Option{{Value: "red"}, {Value: "green"}}}},
		{"an object, input ends after the first field", "1200\n", hitl.InquiryRequest{Prompt: "Budget", ResponseSchema: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"number"},"note":{"type":"string"}}}`)}},
	} {
		inq, _, err := admin.CreateInquiry(ctx, &c.req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		code, _, errOut := cliInput(t, c.input, "respond", fmt.Sprint(inq.ID))
		if code != exitUsage || !strings.Contains(errOut, "nothing was sent") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: exit %d %q, want %d and nothing sent", c.name, code, errOut, exitUsage)
		}
		if got, err := admin.Inquiry(ctx, inq.ID); err != nil || got.Status != hitl.StatusPending {
			t.Errorf("%s: the inquiry after the input ran out: %+v, %v", c.name, got, err)
		}
	}

	// Plain prompts on a stderr that is not a terminal carry no colour codes.
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Which city?", Options: []hitl.Option{{Value: "oslo"}, {Value: "bergen"}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cliInput(t, "1\n\n", "respond", fmt.Sprint(inq.ID)); code != 0 || strings.Contains(errOut, "\x1b[") || !strings.Contains(errOut, "Which city?") {
		t.Errorf("plain prompts off a terminal: exit %d %q", code, errOut)
	}

	// Without a terminal and without ACCESSIBLE, the answer must be given.
	t.Setenv("ACCESSIBLE", "")
	if code, _, errOut := cliInput(t, "", "respond", "1"); code != exitUsage || !strings.Contains(errOut, "form") {
		t.Fatalf("no answer, no terminal: %d %q", code, errOut)
	}
}

// TestRespondFormSaysWhatWasSent: with plain prompts too, the form shows what was asked first,
// keeps the choice in view on the comment prompt, sends the comment beside the answer, and
// ends by saying what was sent.
func TestRespondFormSaysWhatWasSent(t *testing.T) {
	admin, _ := startServer(t)
	t.Setenv("ACCESSIBLE", "1")
	ctx := context.Background()
	for _, c := range []struct {
		name, input string
		req         hitl.InquiryRequest
		shows, sent string
		response    string
		comment     string
	}{
		{"an approval", "n\nnot on a Friday\n", hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, Context: json.RawMessage(`{"version":"v2.5.0"}`)},
			"You chose: Reject. Comment (optional)", `Sent: rejected, with the comment "not on a Friday"`, `{"approved":false,"comment":"not on a Friday"}`, "not on a Friday"},
		{"a selection", "2\nbook it today\n", hitl.InquiryRequest{Prompt: "Which venue?", Context: json.RawMessage(`{"guests":40}`), Options: []hitl.Option{{Value: "a", Label: "Venue A"}, {Value: "b", Label: "Venue B"}}},
			"You chose: Venue B. Comment (optional)", `Sent: Venue B, with the comment "book it today"`, `"b"`, "book it today"},
		{"several options", "1\n3\n0\n\n", hitl.InquiryRequest{Prompt: "Which days?", Multiple: true, Options: []hitl.Option{{Value: "fri"}, {Value: "sat"}, {Value: "sun", Label: "Sunday"}}},
			"You chose: fri, Sunday. Comment (optional)", "Sent: fri, Sunday\n", `["fri","sun"]`, ""},
		{"a text", "OSL\n", hitl.InquiryRequest{Prompt: "Airport code?", ResponseSchema: json.RawMessage(`{"type":"string"}`)},
			"Airport code?", "Sent: OSL\n", `"OSL"`, ""},
		{"an object", "3\n", hitl.InquiryRequest{Prompt: "Seats", ResponseSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
			"n", `Sent: {"n":3}`, `{"n":3}`, ""},
	} {
		inq, _, err := admin.CreateInquiry(ctx, &c.req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		code, _, errOut := cliInput(t, c.input, "respond", fmt.Sprint(inq.ID))
		if code != 0 || !strings.Contains(errOut, c.shows) || !strings.Contains(errOut, c.sent) {
			t.Errorf("%s: exit %d, the screen does not show %q and %q:\n%s", c.name, code, c.shows, c.sent, errOut)
		}
		if context := indentJSON(c.req.Context); context != "" && !strings.Contains(errOut, "Context:\n  "+strings.ReplaceAll(context, "\n", "\n  ")+"\n\n"+c.req.Prompt) {
			t.Errorf("%s: the context is not shown before the question:\n%s", c.name, errOut)
		}
		got, err := admin.Inquiry(ctx, inq.ID)
		if err != nil || !sameJSON(got.Response, c.response) || (c.comment == "") != (got.Comment == nil) || got.Comment != nil && *got.Comment != c.comment {
			t.Errorf("%s: answered %s with the comment %v (%v), want %s and %q", c.name, got.Response, got.Comment, err, c.response, c.comment)
		}
	}
}

// TestAskShowsNoSpinnerOffTerminal: piped, hitl ask prints plain lines only.
func TestAskShowsNoSpinnerOffTerminal(t *testing.T) {
	startServer(t)
	code, out, errOut := cli(t, "ask", "Anyone?", "--timeout", "1s")
	if code != exitTimeout || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if strings.ContainsAny(errOut, "\r\033⠋⠙⠹") {
		t.Fatalf("spinner output off a terminal: %q", errOut)
	}
}
