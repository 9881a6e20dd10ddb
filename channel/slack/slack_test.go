package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/internal/slackpeer"
)

func TestPostApprovalAsDirectMessage(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Deploy <!channel> v2 to prod?", RequestType: hitl.RequestApproval,
		Context: json.RawMessage(`{"env":"prod","diff_lines":412}`)})
	ref, blocks := w.post(inq, "U0ADA")
	if ref.Channel != "D0ADA" || ref.TS == "" {
		t.Fatalf("ref = %+v, want the DM channel Slack answered and a ts", ref)
	}
	text := texts(blocks)
	for _, want := range []string{"Deploy &lt;!channel&gt; v2 to prod?", "*env*\nprod", "*diff_lines*\n412", "deploy-bot", "Approve", "Reject", "Open in the inbox"} {
		if !strings.Contains(text, want) {
			t.Errorf("the message lacks %q:\n%s", want, text)
		}
	}
	if got := actionIDs(blocks); !slices.Equal(got, []string{"hitl.approve", "hitl.reject", "hitl.open"}) {
		t.Errorf("buttons = %v", got)
	}
	if url := button(t, blocks, "Open in the inbox")["url"]; url != fmt.Sprintf("https://hitl.example.com/inquiries/%d", inq.ID) {
		t.Errorf("inbox link = %v", url)
	}
	call := w.peer.Calls("chat.postMessage")[0]
	if call.Form.Get("channel") != "U0ADA" || !strings.HasPrefix(call.Form.Get("text"), "[hitl] Deploy") {
		t.Errorf("posted to %q with text %q", call.Form.Get("channel"), call.Form.Get("text"))
	}
}

func TestPostOptionsAndForms(t *testing.T) {
	w := newWorld(t)
	opts := w.ask(&hitl.InquiryRequest{Prompt: "Which region?", RequestType: hitl.RequestSelection,
		Options: []hitl.Option{{Value: "eu-west-1", Label: "Ireland"}, {Value: "us-east-1"}}})
	_, blocks := w.post(opts, "C0OPS")
	ireland := button(t, blocks, "Ireland")
	if ireland["action_id"] != "hitl.option.0" || ireland["value"] != fmt.Sprintf("%d:eu-west-1", opts.ID) {
		t.Errorf("the option's button = %v", ireland)
	}
	button(t, blocks, "us-east-1")

	schemaInq := w.ask(&hitl.InquiryRequest{Prompt: "How many replicas?", RequestType: hitl.RequestInput,
		ResponseSchema: json.RawMessage(`{"type":"integer","minimum":1}`)})
	_, blocks = w.post(schemaInq, "C0OPS")
	if got := actionIDs(blocks); !slices.Equal(got, []string{"hitl.form", "hitl.open"}) {
		t.Errorf("a schema answer's buttons = %v, want Answer… and the link", got)
	}

	var many []hitl.Option
	for i := range 50 {
		many = append(many, hitl.Option{Value: fmt.Sprintf("option-%d", i)})
	}
	manyInq := w.ask(&hitl.InquiryRequest{Prompt: "Pick one", RequestType: hitl.RequestSelection, Options: many})
	_, blocks = w.post(manyInq, "C0OPS")
	if got := actionIDs(blocks); !slices.Equal(got, []string{"hitl.form", "hitl.open"}) {
		t.Errorf("50 options' buttons = %v, want the form: an actions block holds 25", got)
	}
}

func TestReminderRepliesInThread(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Still there?", RequestType: hitl.RequestApproval})
	first, _ := w.post(inq, "U0ADA")
	ref, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: "U0ADA", Reason: slack.ReasonReminder, Thread: first})
	if err != nil {
		t.Fatal(err)
	}
	call := w.peer.Calls("chat.postMessage")[1]
	if call.Form.Get("thread_ts") != first.TS || call.Form.Get("channel") != first.Channel || ref.Channel != first.Channel {
		t.Errorf("the reminder went to %q thread %q; want the thread of %+v", call.Form.Get("channel"), call.Form.Get("thread_ts"), first)
	}
	if !strings.Contains(texts(call.Blocks(t)), "Reminder") {
		t.Errorf("the reminder does not say it is one")
	}
}

func TestPostFailuresAreClassified(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ok?", RequestType: hitl.RequestApproval})
	post := func() *slack.DeliveryError {
		t.Helper()
		_, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: "C0OPS"})
		var de *slack.DeliveryError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v (%T), want a *slack.DeliveryError", err, err)
		}
		return de
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Status: http.StatusTooManyRequests, RetryAfter: "7"})
	if de := post(); de.RetryAfter != 7*time.Second || de.Permanent {
		t.Errorf("429: %+v, want RetryAfter 7s and retryable", de)
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Status: http.StatusInternalServerError})
	if de := post(); de.Permanent || !de.Retryable() {
		t.Errorf("500: %+v, want retryable", de)
	}
	for _, code := range []string{"channel_not_found", "invalid_auth", "not_in_channel"} {
		w.peer.FailNext("chat.postMessage", slackpeer.Failure{Code: code})
		if de := post(); !de.Permanent || de.Code != code {
			t.Errorf("%s: %+v, want permanent", code, de)
		}
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Code: "internal_error"})
	if de := post(); de.Permanent {
		t.Errorf("internal_error: %+v, want retryable", de)
	}
	// and after all that, Slack takes it
	if _, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: "C0OPS"}); err != nil {
		t.Errorf("the post after the failures: %v", err)
	}

	ref := slack.Ref{Channel: "C0OPS", TS: "1.2"}
	w.peer.FailNext("chat.update", slackpeer.Failure{Status: http.StatusTooManyRequests, RetryAfter: "30"})
	var de *slack.DeliveryError
	if err := w.client.Update(context.Background(), ref, inq); !errors.As(err, &de) || de.RetryAfter != 30*time.Second {
		t.Errorf("update on 429: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	err := slack.Config{APIURL: "ftp://x"}.Validate()
	if err == nil {
		t.Fatal("an empty config passed")
	}
	for _, want := range []string{"HITL_SLACK_BOT_TOKEN", "HITL_SLACK_SIGNING_SECRET", "HITL_SLACK_API_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if _, err := slack.New(slack.Config{}, nil, nil); err == nil {
		t.Error("New took an empty config")
	}
}

func TestSignatures(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ok?", RequestType: hitl.RequestApproval})
	ref, blocks := w.post(inq, "U0ADA")
	b, _ := json.Marshal(click("U0ADA", ref, button(t, blocks, "Approve")))
	body := url.Values{"payload": {string(b)}}.Encode()

	oldTS, oldSig := sign(signingSecret, time.Now().Add(-10*time.Minute), body)
	_, forged := sign("not-the-secret", time.Now(), body)
	for name, headers := range map[string]map[string]string{
		"forged":        {"X-Slack-Signature": forged},
		"old":           {"X-Slack-Request-Timestamp": oldTS, "X-Slack-Signature": oldSig},
		"missing":       {"X-Slack-Signature": ""},
		"no timestamp":  {"X-Slack-Request-Timestamp": ""},
		"not hex":       {"X-Slack-Signature": "v0=zz"},
		"other version": {"X-Slack-Signature": strings.Replace(forged, "v0=", "v1=", 1)},
	} {
		for _, path := range []string{"/slack/interactions", "/slack/commands"} {
			status, msg := w.send(path, body, headers)
			if status != http.StatusUnauthorized || strings.TrimSpace(msg) == "" {
				t.Errorf("%s signature at %s: %d %q, want 401 with words", name, path, status, msg)
			}
		}
	}
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("an unsigned click answered the inquiry: %s", got.Status)
	}
	// the same body, signed, is accepted
	if status, _ := w.send("/slack/interactions", body, nil); status != http.StatusOK {
		t.Errorf("signed: %d", status)
	}
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusResponded {
		t.Errorf("the signed click did not answer: %s", got.Status)
	}
	// a body larger than the bound is refused before anything else
	if status, _ := w.send("/slack/interactions", "payload="+strings.Repeat("x", 2<<20), nil); status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d", status)
	}
}

func TestUnmappedUserIsRefused(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ok?", RequestType: hitl.RequestApproval})
	ref, blocks := w.post(inq, "C0OPS")
	if status, _ := w.interact(click("U0EVE", ref, button(t, blocks, "Approve"))); status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	eph := w.peer.Calls("chat.postEphemeral")
	if len(eph) != 1 || eph[0].Form.Get("user") != "U0EVE" || eph[0].Form.Get("channel") != "C0OPS" ||
		!strings.Contains(eph[0].Form.Get("text"), "not mapped to a hitl person") {
		t.Fatalf("ephemeral refusals: %+v", eph)
	}
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Errorf("an unmapped user answered: %s", got.Status)
	}
	if n := len(w.peer.Calls("chat.update")); n != 0 {
		t.Errorf("%d updates after a refusal", n)
	}
}

func TestClickAnswersAndUpdatesTheMessage(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval})
	ref, blocks := w.post(inq, "U0ADA")
	if status, _ := w.interact(click("U0ADA", ref, button(t, blocks, "Approve"))); status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	got := w.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "ada" || string(got.Response) != `{"approved":true}` {
		t.Fatalf("after the click: %s by %v: %s", got.Status, got.RespondedBy, got.Response)
	}
	updates := w.peer.Calls("chat.update")
	if len(updates) != 1 || updates[0].Form.Get("channel") != ref.Channel || updates[0].Form.Get("ts") != ref.TS {
		t.Fatalf("updates: %+v", updates)
	}
	ub := updates[0].Blocks(t)
	if !strings.Contains(texts(ub), "Answered by ada: approve") {
		t.Errorf("the update does not say who answered what:\n%s", texts(ub))
	}
	if ids := actionIDs(ub); !slices.Equal(ids, []string{"hitl.open"}) {
		t.Errorf("the answered message still has buttons: %v", ids)
	}

	// bob clicks Reject on the same message later: refused, in words
	w.interact(click("U0BOB", ref, button(t, blocks, "Reject")))
	eph := w.peer.Calls("chat.postEphemeral")
	if len(eph) != 1 || !strings.Contains(eph[0].Form.Get("text"), fmt.Sprintf("inquiry %d is already answered by ada", inq.ID)) {
		t.Fatalf("the late click's refusal: %+v", eph)
	}
	if got := w.inquiry(inq.ID); string(got.Response) != `{"approved":true}` {
		t.Errorf("the late click changed the answer: %s", got.Response)
	}
}

func TestOptionClickAnswersWithTheOption(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Which region?", RequestType: hitl.RequestSelection,
		Options: []hitl.Option{{Value: "eu-west-1", Label: "Ireland"}, {Value: "us-east-1"}}})
	ref, blocks := w.post(inq, "C0OPS")
	w.interact(click("U0BOB", ref, button(t, blocks, "Ireland")))
	got := w.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || string(got.Response) != `"eu-west-1"` || *got.RespondedBy != "bob" {
		t.Fatalf("after the click: %s %s by %v", got.Status, got.Response, got.RespondedBy)
	}
	if u := w.peer.Calls("chat.update"); len(u) != 1 || !strings.Contains(texts(u[0].Blocks(t)), "Answered by bob: Ireland") {
		t.Errorf("updates: %+v", u)
	}
}

func TestUnauthorisedPersonIsRefused(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Restart the db?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice", "group:sre"}})
	ref, blocks := w.post(inq, "C0OPS")
	// root, an admin, sees the inquiry and is told whom it is for
	w.interact(click("U0ROOT", ref, button(t, blocks, "Approve")))
	// bob, a responder outside the assignment, may not even see it (the engine's rule)
	w.interact(click("U0BOB", ref, button(t, blocks, "Approve")))
	eph := w.peer.Calls("chat.postEphemeral")
	if len(eph) != 2 {
		t.Fatalf("refusals: %+v", eph)
	}
	want := fmt.Sprintf("inquiry %d is assigned to alice and the group sre; root is not one of them", inq.ID)
	if got := eph[0].Form.Get("text"); eph[0].Form.Get("user") != "U0ROOT" || !strings.Contains(got, want) {
		t.Errorf("root's refusal: %q, want %q", got, want)
	}
	want = fmt.Sprintf("inquiry %d is not one that bob may see or answer", inq.ID)
	if got := eph[1].Form.Get("text"); eph[1].Form.Get("user") != "U0BOB" || !strings.Contains(got, want) {
		t.Errorf("bob's refusal: %q, want %q", got, want)
	}
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Errorf("someone answered an inquiry for alice and sre: %s", got.Status)
	}
}

// schemaInquiry asks for an object the modal builds field by field.
func schemaInquiry(w *world) *hitl.Inquiry {
	return w.ask(&hitl.InquiryRequest{Prompt: "Scale the service", RequestType: hitl.RequestInput,
		ResponseSchema: json.RawMessage(`{"type":"object","properties":{
			"replicas":{"type":"integer","minimum":1,"maximum":20,"title":"Replicas"},
			"env":{"enum":["dev","staging","prod"]},
			"notify":{"type":"boolean"},
			"tags":{"type":"array","items":{"type":"string"}}
		},"required":["replicas","env"],"additionalProperties":false}`)})
}

// openForm clicks Answer… and returns the view Slack was asked to open.
func openForm(t *testing.T, w *world, user string, inq *hitl.Inquiry) (slack.Ref, map[string]any) {
	t.Helper()
	ref, blocks := w.post(inq, "C0OPS")
	w.interact(click(user, ref, button(t, blocks, "Answer…")))
	opens := w.peer.Calls("views.open")
	if len(opens) == 0 {
		t.Fatalf("no views.open; ephemerals: %+v", w.peer.Calls("chat.postEphemeral"))
	}
	call := opens[len(opens)-1]
	if call.JSON["trigger_id"] != "13345224609.738474920.8088930838d88f008e0" {
		t.Errorf("views.open with trigger_id %v", call.JSON["trigger_id"])
	}
	return ref, call.JSON["view"].(map[string]any)
}

// submit posts the view_submission of the view with the inputs' state.
func submit(w *world, user string, view map[string]any, values map[string]any) (int, map[string]any) {
	w.t.Helper()
	v := map[string]any{}
	for k, x := range view {
		v[k] = x
	}
	v["id"], v["state"] = "V0001", map[string]any{"values": values}
	status, body := w.interact(map[string]any{
		"type": "view_submission", "user": map[string]any{"id": user}, "api_app_id": "A0001",
		"team": map[string]any{"id": "T0001"}, "trigger_id": "1.2.3", "view": v,
	})
	var out map[string]any
	if strings.TrimSpace(body) != "" {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			w.t.Fatalf("the submission's answer is not JSON: %q", body)
		}
	}
	return status, out
}

// inputBlock finds the modal's input with the label, and its block_id.
func inputBlock(t *testing.T, view map[string]any, label string) (string, map[string]any) {
	t.Helper()
	for _, b := range view["blocks"].([]any) {
		blk := b.(map[string]any)
		if blk["type"] == "input" && blk["label"].(map[string]any)["text"] == label {
			return blk["block_id"].(string), blk["element"].(map[string]any)
		}
	}
	t.Fatalf("no input %q in the modal", label)
	return "", nil
}

func TestModalFromTheFormModel(t *testing.T) {
	w := newWorld(t)
	inq := schemaInquiry(w)
	_, view := openForm(t, w, "U0ADA", inq)
	if view["type"] != "modal" || view["callback_id"] != "hitl.answer" {
		t.Fatalf("view: %v", view)
	}
	_, replicas := inputBlock(t, view, "Replicas")
	if replicas["type"] != "plain_text_input" {
		t.Errorf("an integer's input is %v", replicas["type"])
	}
	_, env := inputBlock(t, view, "env")
	if env["type"] != "static_select" || len(env["options"].([]any)) != 3 {
		t.Errorf("a choice's input: %v", env)
	}
	_, notify := inputBlock(t, view, "notify")
	if notify["type"] != "radio_buttons" {
		t.Errorf("a boolean's input: %v", notify["type"])
	}
	_, tags := inputBlock(t, view, "tags")
	if tags["type"] != "plain_text_input" || tags["multiline"] != true {
		t.Errorf("a list's input: %v", tags)
	}
	if !strings.Contains(texts(view), "whole number") {
		t.Errorf("the integer's hint does not say what it takes:\n%s", texts(view))
	}
}

func TestModalSubmission(t *testing.T) {
	w := newWorld(t)
	inq := schemaInquiry(w)
	ref, view := openForm(t, w, "U0ADA", inq)
	replicasID, _ := inputBlock(t, view, "Replicas")
	envID, _ := inputBlock(t, view, "env")
	tagsID, _ := inputBlock(t, view, "tags")
	text := func(v string) map[string]any {
		return map[string]any{"value": map[string]any{"type": "plain_text_input", "value": v}}
	}
	selected := func(v string) map[string]any {
		return map[string]any{"value": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": v, "text": map[string]any{"type": "plain_text", "text": "prod"}}}}
	}

	// a value the form cannot read: the error stands beside its field, in words
	status, out := submit(w, "U0ADA", view, map[string]any{replicasID: text("three"), envID: selected("2")})
	errs, _ := out["errors"].(map[string]any)
	if status != http.StatusOK || out["response_action"] != "errors" || !strings.Contains(fmt.Sprint(errs[replicasID]), "whole number") {
		t.Fatalf("unreadable number: %d %v", status, out)
	}
	// a value the schema refuses: the engine's words, beside the field
	_, out = submit(w, "U0ADA", view, map[string]any{replicasID: text("50"), envID: selected("2")})
	errs, _ = out["errors"].(map[string]any)
	if out["response_action"] != "errors" || errs[replicasID] == nil {
		t.Fatalf("out of range: %v", out)
	}
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("an invalid submission answered: %s", got.Status)
	}
	if n := len(w.peer.Calls("chat.update")); n != 0 {
		t.Errorf("%d updates after invalid submissions", n)
	}

	// bob may not answer for … nobody: unassigned, so he may; but eve is unmapped
	_, out = submit(w, "U0EVE", view, map[string]any{replicasID: text("3"), envID: selected("2")})
	if !strings.Contains(fmt.Sprint(out["errors"]), "not mapped to a hitl person") {
		t.Errorf("an unmapped submission: %v", out)
	}

	commentID, _ := inputBlock(t, view, "Comment")
	status, out = submit(w, "U0ADA", view, map[string]any{replicasID: text("3"), envID: selected("2"), tagsID: text("blue\n\ngreen"),
		commentID: text("  canary first  ")})
	if status != http.StatusOK || out != nil {
		t.Fatalf("valid submission: %d %v", status, out)
	}
	// The comment is the answer's comment, as the API gives it, beside an answer of the form's shape.
	got, err := w.server.Admin.Inquiry(context.Background(), inq.ID)
	if err != nil {
		t.Fatal(err)
	}
	var answer map[string]any
	json.Unmarshal(got.Response, &answer)
	if got.Status != hitl.StatusResponded || answer["replicas"] != 3.0 || answer["env"] != "prod" || fmt.Sprint(answer["tags"]) != "[blue green]" || len(answer) != 3 {
		t.Fatalf("after the submission: %s %s", got.Status, got.Response)
	}
	if got.Comment == nil || *got.Comment != "canary first" {
		t.Errorf("the answer's comment is %v, want %q", got.Comment, "canary first")
	}
	updates := w.peer.Calls("chat.update")
	if len(updates) != 1 || updates[0].Form.Get("ts") != ref.TS || !strings.Contains(texts(updates[0].Blocks(t)), "Answered by ada") {
		t.Errorf("updates after the submission: %+v", updates)
	}
}

func TestUpdateAfterAnAnswerElsewhere(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	ref, _ := w.post(inq, "U0ADA")
	answered, err := w.server.Admin.Respond(context.Background(), inq.ID, json.RawMessage(`{"approved":false,"comment":"not on a Friday"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.client.Update(context.Background(), ref, answered); err != nil {
		t.Fatal(err)
	}
	u := w.peer.Calls("chat.update")
	if len(u) != 1 {
		t.Fatalf("updates: %+v", u)
	}
	// The approval's comment is the answer's comment too: said once, under the answer.
	if said := texts(u[0].Blocks(t)); !strings.Contains(said, "Answered by admin: reject\n>not on a Friday") || strings.Count(said, "not on a Friday") != 1 ||
		slices.Contains(actionIDs(u[0].Blocks(t)), "hitl.approve") {
		t.Fatalf("update: %+v", u)
	}

	cancelled := w.ask(&hitl.InquiryRequest{Prompt: "Rotate keys?", RequestType: hitl.RequestApproval})
	ref, _ = w.post(cancelled, "U0ADA")
	c, err := w.server.Admin.Cancel(context.Background(), cancelled.ID, "done by hand")
	if err != nil {
		t.Fatal(err)
	}
	w.client.Update(context.Background(), ref, c)
	if u := w.peer.Calls("chat.update"); !strings.Contains(texts(u[1].Blocks(t)), "Cancelled: done by hand") {
		t.Errorf("the cancelled message: %s", texts(u[1].Blocks(t)))
	}
}

func TestSlashCommandListsPendingInquiries(t *testing.T) {
	w := newWorld(t)
	mine := w.ask(&hitl.InquiryRequest{Prompt: "For bob's group", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:dev"}})
	w.ask(&hitl.InquiryRequest{Prompt: "For alice only", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice"}})
	command := w.slash
	msg := command("U0BOB")
	text := texts(msg)
	if msg["response_type"] != "ephemeral" || !strings.Contains(text, "For bob's group") || strings.Contains(text, "For alice only") {
		t.Fatalf("bob's list: %v", msg)
	}
	blocks := []map[string]any{}
	for _, b := range msg["blocks"].([]any) {
		blocks = append(blocks, b.(map[string]any))
	}
	approve := button(t, blocks, "Approve")
	if approve["value"] != fmt.Sprint(mine.ID) {
		t.Errorf("the listed button's value = %v", approve["value"])
	}
	// clicking in the ephemeral list answers, and tells bob (an ephemeral message cannot be updated)
	payload := click("U0BOB", slack.Ref{Channel: "C0OPS", TS: "1700000009.000001"}, approve)
	payload["container"].(map[string]any)["is_ephemeral"] = true
	w.interact(payload)
	if got := w.inquiry(mine.ID); got.Status != hitl.StatusResponded {
		t.Fatalf("the click in the list did not answer: %s", got.Status)
	}
	if eph := w.peer.Calls("chat.postEphemeral"); len(eph) != 1 || !strings.Contains(eph[0].Form.Get("text"), "Recorded your answer") {
		t.Errorf("after the click in the list: %+v", eph)
	}
	if n := len(w.peer.Calls("chat.update")); n != 0 {
		t.Errorf("an ephemeral message was updated %d times", n)
	}

	if !strings.Contains(texts(command("U0EVE")), "not mapped to a hitl person") {
		t.Errorf("an unmapped /hitl was not refused")
	}
	if !strings.Contains(texts(command("U0BOB")), "Nothing waits for you") {
		t.Errorf("bob's empty list")
	}
}

func TestBadPayloads(t *testing.T) {
	w := newWorld(t)
	for name, body := range map[string]string{
		"no payload":  "foo=bar",
		"not JSON":    url.Values{"payload": {"{nope"}}.Encode(),
		"no metadata": url.Values{"payload": {`{"type":"view_submission","user":{"id":"U0ADA"},"view":{"callback_id":"hitl.answer","private_metadata":"x"}}`}}.Encode(),
	} {
		status, msg := w.send("/slack/interactions", body, nil)
		if status != http.StatusBadRequest || strings.TrimSpace(msg) == "" {
			t.Errorf("%s: %d %q, want 400 with words", name, status, msg)
		}
	}
	// a button hitl did not make, and a click on the inbox link, are acknowledged and ignored
	ref := slack.Ref{Channel: "C0OPS", TS: "1.1"}
	for _, btn := range []map[string]any{
		{"action_id": "hitl.open", "value": ""},
		{"action_id": "hitl.approve", "value": "not-a-number"},
		{"action_id": "someone.else", "value": "7"},
	} {
		if status, _ := w.interact(click("U0ADA", ref, btn)); status != http.StatusOK {
			t.Errorf("%v: %d", btn, status)
		}
	}
	if n := len(w.peer.Calls("chat.postEphemeral")) + len(w.peer.Calls("chat.update")); n != 0 {
		t.Errorf("ignored clicks made %d calls", n)
	}
}

func TestModalForWhatSlackCannotExpress(t *testing.T) {
	w := newWorld(t)
	// oneOf has no field-by-field form: one JSON input, its problems in words
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Target?", RequestType: hitl.RequestInput,
		ResponseSchema: json.RawMessage(`{"oneOf":[{"type":"string"},{"type":"object","properties":{"host":{"type":"string"}},"required":["host"]}]}`)})
	_, view := openForm(t, w, "U0ADA", inq)
	id, input := inputBlock(t, view, "Your answer")
	if input["type"] != "plain_text_input" || input["multiline"] != true || !strings.Contains(texts(view), "JSON, for example") {
		t.Fatalf("the JSON input: %v\n%s", input, texts(view))
	}
	typed := func(v string) map[string]any {
		return map[string]any{id: map[string]any{"value": map[string]any{"type": "plain_text_input", "value": v}}}
	}
	if _, out := submit(w, "U0ADA", view, typed(`{"host":`)); !strings.Contains(fmt.Sprint(out["errors"]), "is not valid JSON") {
		t.Errorf("broken JSON: %v", out)
	}
	if status, out := submit(w, "U0ADA", view, typed(`{"host":"db1"}`)); status != http.StatusOK || out != nil {
		t.Fatalf("valid JSON: %d %v", status, out)
	}
	if got := w.inquiry(inq.ID); string(got.Response) != `{"host":"db1"}` {
		t.Errorf("answer: %s", got.Response)
	}

	// several options at once: checkboxes in the form, with a comment
	multi := w.ask(&hitl.InquiryRequest{Prompt: "Which checks?", RequestType: hitl.RequestSelection, Multiple: true,
		Options: []hitl.Option{{Value: "lint", Label: "Lint"}, {Value: "unit"}, {Value: "e2e"}}})
	_, view = openForm(t, w, "U0BOB", multi)
	id, input = inputBlock(t, view, "Your answer")
	if input["type"] != "checkboxes" || len(input["options"].([]any)) != 3 {
		t.Fatalf("several options' input: %v", input)
	}
	commentID, _ := inputBlock(t, view, "Comment")
	status, out := submit(w, "U0BOB", view, map[string]any{
		id: map[string]any{"value": map[string]any{"type": "checkboxes", "selected_options": []any{
			map[string]any{"value": "0"}, map[string]any{"value": "2"}}}},
		commentID: map[string]any{"value": map[string]any{"type": "plain_text_input", "value": "skip unit, flaky"}},
	})
	if status != http.StatusOK || out != nil {
		t.Fatalf("checkboxes: %d %v", status, out)
	}
	got := w.inquiry(multi.ID)
	if string(got.Response) != `["lint","e2e"]` || got.Comment == nil || *got.Comment != "skip unit, flaky" {
		t.Errorf("answer: %s comment %v", got.Response, got.Comment)
	}
	// the form of an answered inquiry does not open again
	_, blocks := w.post(multi, "C0OPS")
	ref := slack.Ref{Channel: "C0OPS", TS: "1.1"}
	opens := len(w.peer.Calls("views.open"))
	w.interact(click("U0BOB", ref, button(t, blocks, "Answer…")))
	if len(w.peer.Calls("views.open")) != opens {
		t.Errorf("a form opened for an answered inquiry")
	}
	eph := w.peer.Calls("chat.postEphemeral")
	if len(eph) == 0 || !strings.Contains(eph[len(eph)-1].Form.Get("text"), "already answered by bob") {
		t.Errorf("opening an answered inquiry's form: %+v", eph)
	}
}
