package slack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/internal/slackpeer"
)

// withinSlack fails the test with every way a message breaks Slack's limits.
func withinSlack(t *testing.T, what, text string, blocks any) {
	t.Helper()
	for _, p := range slackpeer.MessageProblems(text, blocks) {
		t.Errorf("%s: %s", what, p)
	}
}

// vote casts a vote on a quorum as the person.
func (w *world) vote(p *hitl.Principal, id int64, approved bool) {
	w.t.Helper()
	answer := `{"approved":false}`
	if approved {
		answer = `{"approved":true}`
	}
	if _, err := w.engine.Respond(context.Background(), p, id, &hitl.ResponseRequest{Response: []byte(answer)}); err != nil {
		w.t.Fatalf("%s's vote on %d: %v", p.Name, id, err)
	}
}

// The reproduction of issue 25's point 5: /hitl listing ten pending quorum votes replied 51
// blocks (a divider and five blocks each, and the line above them), which Slack refuses
// whole. All ten fit now, each with its buttons.
func TestSlashCommandListsTenPendingVotes(t *testing.T) {
	w := newWorld(t)
	var prompts []string
	for i := range 10 {
		prompt := fmt.Sprintf("Ship release %d?", i+1)
		prompts = append(prompts, prompt)
		inq := w.ask(&hitl.InquiryRequest{Prompt: prompt, RequestType: hitl.RequestApproval,
			AssignedTo: []string{"ada", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
		w.vote(ada, inq.ID, true)
	}
	shown, words := listed(t, w.slash("U0BOB"))
	for _, p := range prompts {
		if !strings.Contains(words, p) {
			t.Errorf("the list lacks %q", p)
		}
	}
	if shown != 10 || strings.Contains(words, "more are pending") || !strings.Contains(words, "1 of 2 approvals: ada approved") {
		t.Errorf("%d of ten pending votes listed with their buttons:\n%s", shown, words)
	}
}

// long is a text of n characters that escaping in mrkdwn lengthens, with characters of
// several bytes: the worst a builder meets.
func long(n int) string {
	const unit = "a&<>é🙂 " // 7 characters, 17 once escaped
	return string([]rune(strings.Repeat(unit, n/7+1))[:n])
}

// name is a principal's name as long as hitl allows (200 characters), ending in i.
func name(i int) string { return fmt.Sprintf("%s-%03d", strings.Repeat("n", 196), i) }

// askAs asks as the agent of that name.
func (w *world) askAs(who string, req *hitl.InquiryRequest) *hitl.Inquiry {
	w.t.Helper()
	inq, _, err := w.engine.CreateInquiry(context.Background(), &hitl.Principal{Name: who, Roles: []string{hitl.RoleAgent}}, req, "")
	if err != nil {
		w.t.Fatalf("creating the inquiry: %v", err)
	}
	return inq
}

// largestInquiries are the biggest inquiries the engine takes, one of each shape a message
// has: an approval with the longest prompt, a context of many long values and a deadline;
// the most options that are still buttons, and more; a quorum of fifty long names with all
// but one vote cast; a chain whose step names fifty of them.
func largestInquiries(w *world) map[string]*hitl.Inquiry {
	t := w.t
	ctxObj := map[string]string{}
	for i := range 20 { // within the engine's 256 KiB
		ctxObj[fmt.Sprintf("%s%02d", long(198), i)] = long(3000)
	}
	rawCtx, _ := json.Marshal(ctxObj)
	timeout := int64(3600)
	out := map[string]*hitl.Inquiry{
		"approval": w.askAs(name(0), &hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestApproval,
			Context: rawCtx, TimeoutSeconds: &timeout}),
	}
	option := func(i int) hitl.Option {
		return hitl.Option{Value: fmt.Sprintf("%s%03d", strings.Repeat("v", 197), i), Label: long(200)}
	}
	var buttons, many []hitl.Option
	for i := range 50 {
		if i < 24 {
			buttons = append(buttons, option(i))
		}
		many = append(many, option(i))
	}
	out["24 options"] = w.askAs(name(1), &hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestSelection, Options: buttons, Context: rawCtx})
	out["50 options"] = w.askAs(name(2), &hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestSelection, Options: many, Multiple: true})

	var voters []string
	for i := range 50 {
		voters = append(voters, name(100+i))
	}
	quorum := w.askAs(name(3), &hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestApproval, Context: rawCtx,
		AssignedTo: voters, Quorum: &hitl.Quorum{Required: 50}, TimeoutSeconds: &timeout})
	for _, v := range voters[:49] {
		w.vote(&hitl.Principal{Name: v, Roles: []string{hitl.RoleResponder}}, quorum.ID, true)
	}
	out["quorum"] = w.inquiry(quorum.ID)
	out["chain"] = w.askAs(name(4), &hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestApproval, Context: rawCtx,
		Steps: []hitl.ApprovalStep{{AssignedTo: voters, Required: 50}, {AssignedTo: voters[:1], Required: 1}}})
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// Every message hitl posts stays within Slack's limits at its largest: each shape of inquiry
// posted new, as a reminder and as an escalation, and updated once answered, timed out and
// cancelled with the longest words. What is cut says so.
func TestLargestMessagesStayWithinSlack(t *testing.T) {
	w := newWorld(t)
	posted := map[string]string{} // the words of each shape's message
	for what, inq := range largestInquiries(w) {
		for _, reason := range []slack.Reason{slack.ReasonCreated, slack.ReasonReminder, slack.ReasonEscalation} {
			if _, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: "C0OPS", Reason: reason}); err != nil {
				t.Errorf("posting the %s (%s): %v", what, reason, err)
			}
		}
		calls := w.peer.Calls("chat.postMessage")
		posted[what] = texts(calls[len(calls)-1].Blocks(t))
		ended := *inq
		comment := long(8000)
		by := name(999)
		ended.Status, ended.RespondedBy, ended.Comment = hitl.StatusResponded, &by, &comment
		ended.Response = json.RawMessage(`{"approved":true,"comment":` + quote(long(8000)) + `}`)
		if len(inq.Options) > 0 {
			var all []string
			for _, o := range inq.Options {
				all = append(all, o.Value)
			}
			ended.Response, _ = json.Marshal(all)
		}
		timedOut, cancelled := *inq, *inq
		timedOut.Status, timedOut.FallbackApplied, timedOut.Response = hitl.StatusTimeout, true, json.RawMessage(quote(long(8000)))
		reason := long(8000)
		cancelled.Status, cancelled.CancelReason = hitl.StatusCancelled, &reason
		for _, final := range []*hitl.Inquiry{&ended, &timedOut, &cancelled} {
			if err := w.client.Update(context.Background(), slack.Ref{Channel: "C0OPS", TS: "1.1"}, final); err != nil {
				t.Errorf("updating the %s, %s: %v", what, final.Status, err)
			}
		}
	}
	posts := append(w.peer.Calls("chat.postMessage"), w.peer.Calls("chat.update")...)
	if len(posts) != 5*3+5*3 {
		t.Fatalf("%d messages, want 30", len(posts))
	}
	for i, c := range posts {
		withinSlack(t, fmt.Sprintf("%s %d", c.Method, i), c.Form.Get("text"), c.Blocks(t))
	}

	// What a message leaves out, it says.
	for _, want := range []string{"the inbox shows the whole question", "13 more in the inbox", "Answer by"} {
		if !strings.Contains(posted["approval"], want) {
			t.Errorf("the largest approval does not say %q:\n%s", want, posted["approval"])
		}
	}
	if votes := posted["quorum"]; !strings.Contains(votes, "49 of 50 approvals: "+name(100)+" approved, ") || !regexp.MustCompile(` approved and \d+ more`).MatchString(votes) {
		t.Errorf("the votes of fifty are not said as the first of them and how many more:\n%s", votes)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// withinSlackForm fails the test with every way a form breaks Slack's limits.
func withinSlackForm(t *testing.T, what string, view map[string]any) {
	t.Helper()
	for _, p := range slackpeer.ViewProblems(view) {
		t.Errorf("%s: %s", what, p)
	}
}

// schemaOf is an object schema of the properties (each a schema), in order of their names.
func schemaOf(props map[string]string) json.RawMessage {
	raw := map[string]json.RawMessage{}
	for k, v := range props {
		raw[k] = json.RawMessage(v)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": raw})
	return b
}

func enumOf(n, size int) string {
	var vals []string
	for i := range n {
		vals = append(vals, quote(fmt.Sprintf("%s%03d", strings.Repeat("e", size-3), i)))
	}
	return "[" + strings.Join(vals, ",") + "]"
}

// Every form hitl opens stays within Slack's limits at its largest: as many fields as a modal
// holds, and one more; the longest titles, descriptions and examples; choices as many as each
// input takes, and one more, which are typed instead; an empty choice; the most options.
func TestLargestFormsStayWithinSlack(t *testing.T) {
	w := newWorld(t)
	fields := func(n int) json.RawMessage {
		props := map[string]string{}
		for i := range n {
			props[fmt.Sprintf("f%03d", i)] = `{"type":"string","title":` + quote(fmt.Sprintf("Field %d", i)) + `}`
		}
		return schemaOf(props)
	}
	words := strings.Repeat("word ", 500) // 2,500 characters
	forms := map[string]*hitl.InquiryRequest{
		"98 fields": {ResponseSchema: fields(98)},
		"99 fields": {ResponseSchema: fields(99)},
		"every kind": {ResponseSchema: schemaOf(map[string]string{
			"a_text":      `{"type":"string","title":` + quote(words) + `,"description":` + quote(words) + `,"maxLength":5000,"pattern":` + quote(strings.Repeat("[a-z]", 400)) + `}`,
			"b_choice100": `{"enum":` + enumOf(100, 150) + `}`,
			"c_choice101": `{"enum":` + enumOf(101, 40) + `}`,
			"d_checks10":  `{"type":"array","items":{"enum":` + enumOf(10, 150) + `}}`,
			"e_checks11":  `{"type":"array","items":{"enum":` + enumOf(11, 150) + `}}`,
			"f_checks101": `{"type":"array","items":{"enum":` + enumOf(101, 40) + `}}`,
			"g_empty":     `{"enum":["","x"]}`,
			"h_yes":       `{"type":"boolean","title":` + quote(words) + `}`,
			"i_number":    `{"type":"integer","minimum":1}`,
			"j_json":      `{"oneOf":[{"type":"string"},{"type":"object","properties":{` + quote(words) + `:{"type":"string"}},"required":[` + quote(words) + `]}]}`,
		})},
	}
	option := func(i int) hitl.Option { return hitl.Option{Value: fmt.Sprint(i), Label: long(200)} }
	var many []hitl.Option
	for i := range 50 {
		many = append(many, option(i))
	}
	views := map[string]map[string]any{}
	for what, req := range forms {
		req.Prompt, req.RequestType = long(8000), hitl.RequestInput
		_, views[what] = openForm(t, w, "U0ADA", w.ask(req))
	}
	_, views["50 options"] = openForm(t, w, "U0ADA", w.ask(&hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestSelection, Options: many}))
	_, views["50 options, several"] = openForm(t, w, "U0ADA", w.ask(&hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestSelection, Options: many, Multiple: true}))
	for what, view := range views {
		withinSlackForm(t, what, view)
	}

	if n := len(views["98 fields"]["blocks"].([]any)); n != 100 {
		t.Errorf("the form of 98 fields has %d blocks, want the prompt, 98 inputs and the comment", n)
	}
	if _, input := inputBlock(t, views["99 fields"], "Your answer"); input["multiline"] != true {
		t.Errorf("99 fields, more than a modal holds, are not one JSON input: %v", input)
	}
	every := views["every kind"]
	for label, kind := range map[string]string{"b_choice100": "static_select", "c_choice101": "plain_text_input",
		"d_checks10": "checkboxes", "e_checks11": "multi_static_select", "f_checks101": "plain_text_input"} {
		if _, input := inputBlock(t, every, label); input["type"] != kind {
			t.Errorf("%s's input is a %v, want a %s", label, input["type"], kind)
		}
	}
	shown := texts(every)
	for _, want := range []string{"more (the inbox lists them all)", "(empty)", "the inbox shows the whole question"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the form does not say %q", want)
		}
	}
}

// listed is what /hitl showed: how many inquiries it lists with their buttons, and all its
// words. A reply beyond Slack's limits fails the test.
func listed(t *testing.T, msg map[string]any) (shown int, words string) {
	t.Helper()
	blocks, _ := msg["blocks"].([]any)
	text, _ := msg["text"].(string)
	withinSlack(t, "/hitl", text, blocks)
	for _, b := range blocks {
		if id, _ := b.(map[string]any)["block_id"].(string); strings.HasPrefix(id, "hitl.actions.") {
			shown++
		}
	}
	return shown, texts(msg)
}

// /hitl lists as many pending inquiries as fit in one message, and says how many more there
// are and where they are: ten at most, fewer when they are long.
func TestSlashCommandListSaysWhatDoesNotFit(t *testing.T) {
	w := newWorld(t)
	for i := range 12 {
		w.ask(&hitl.InquiryRequest{Prompt: fmt.Sprintf("Small question %d?", i), RequestType: hitl.RequestApproval})
	}
	shown, words := listed(t, w.slash("U0BOB"))
	if shown != 10 || !strings.Contains(words, "12 pending inquiries for bob") || !strings.Contains(words, "And 2 more are pending: the inbox lists them all.") {
		t.Errorf("twelve small ones: %d listed:\n%s", shown, words)
	}

	largestInquiries(w)
	soon := int64(60) // listed first
	for range 20 {
		w.ask(&hitl.InquiryRequest{Prompt: long(8000), RequestType: hitl.RequestApproval, TimeoutSeconds: &soon,
			Context: json.RawMessage(`{"why":` + quote(long(3000)) + `,"what":` + quote(long(3000)) + `}`)})
	}
	msg := w.slash("U0ROOT")
	shown, words = listed(t, msg)
	more := fmt.Sprintf("And %d more are pending: the inbox lists them all.", 37-shown)
	if shown < 1 || shown >= 10 || !strings.Contains(words, "37 pending inquiries for root") || !strings.Contains(words, more) {
		t.Errorf("37 pending, the long ones among them: %d listed:\n%s", shown, words)
	}
	if !strings.Contains(fmt.Sprint(msg), "https://hitl.example.com/?tab=pending&sort=deadline") {
		t.Errorf("the list does not link the inbox's list of pending inquiries: %v", msg["blocks"])
	}
	t.Logf("/hitl with 37 pending, %d of them listed:\n%s", shown, words)
}
