package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/testskip"
)

// These tests drive the inbox in a real, headless Chromium. .ci/run installs Debian's chromium;
// elsewhere the tests skip when no browser is found (HITL_CHROMIUM names one).

func chromium(t *testing.T) string {
	for _, p := range []string{os.Getenv("HITL_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found; .ci/run installs the chromium package")
	}
	testskip.Skip(t, "browser tests (no Chromium found): install the chromium package, or set HITL_CHROMIUM to a Chrome or Chromium binary")
	return ""
}

// newBrowser starts a headless Chromium for the test; tabs opened from the returned context
// share its cookies.
func newBrowser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // root in CI containers
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	watchDialogs(t, ctx) // starts the browser
	return ctx
}

// watchDialogs fails the test when a script opens an alert, a confirm or a prompt: no page of
// the inbox does, so one is a script that came from an inquiry.
func watchDialogs(t *testing.T, ctx context.Context) {
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for d, err := range dialogs {
			if err != nil {
				return
			}
			t.Errorf("a script opened a dialog: %q", d.Message)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
}

// newTab opens another tab of the same browser (same cookies); fresh opens one in a new
// browser context, with no cookies.
func newTab(t *testing.T, browser context.Context, fresh bool) context.Context {
	var opts []chromedp.ContextOption
	if fresh {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(browser, opts...)
	t.Cleanup(cancel)
	watchDialogs(t, ctx)
	return ctx
}

const step = 20 * time.Second

// do runs the steps in a tab, bounded so a missing element fails the test instead of hanging it.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// get runs one action that gives a value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return strings.TrimSpace(get(t, ctx, chromedp.TextContent(chromedp.CSS(sel))))
}

// waitText waits until the element's text contains want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); return !!el && el.textContent.includes(%q); })()`, sel, want)
	get(t, ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second)))
}

// signInWithForm signs the browser in through the sign-in form.
func signInWithForm(t *testing.T, ctx context.Context, base, token string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("#tabs")),
	)
}

// screenshotDir is where screenshots go: $HITL_SCREENSHOTS (.ci/run sets it and lists what
// is there), else a new temporary directory.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("HITL_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "hitl-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the page as a test artifact and prints where.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png := get(t, ctx, chromedp.FullScreenshot(100))
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println("screenshot:", path)
}

// updateDocs is the variable that has the tests rewrite the files of docs/ they make (as
// docs/configuration.md is made): here the pictures of the inbox the README shows.
const updateDocs = "HITL_UPDATE_DOCS"

// docsPicture takes a picture of the whole page for docs/NAME: it checks, always, that the
// picture is a PNG of the page's size, small enough to keep in the repository, and writes it
// to docs/ when HITL_UPDATE_DOCS=1.
func docsPicture(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot := get(t, ctx, chromedp.FullScreenshot(100))
	size := get(t, ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.scrollHeight]`))
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the picture for docs/%s is no PNG: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != size[0] || b.Dy() < size[1]-1 || b.Dy() > size[1]+1 {
		t.Errorf("the picture for docs/%s is %dx%d; the page is %dx%d", name, b.Dx(), b.Dy(), size[0], size[1])
	}
	if len(shot) > 512<<10 {
		t.Errorf("the picture for docs/%s takes %d KiB; keep it under 512 KiB (CI refuses files over 1 MiB)", name, len(shot)>>10)
	}
	if os.Getenv(updateDocs) == "1" {
		if err := os.WriteFile(filepath.Join("..", "docs", name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Println("wrote docs/" + name)
	}
}

func TestInboxInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	ctx0 := context.Background()

	// Sign in: the inbox sends a visitor to the sign-in form and back.
	do(t, ctx,
		chromedp.Navigate(e.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), e.responderToken),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("#tabs")),
	)
	if who := text(t, ctx, ".who strong"); who != "ada" {
		t.Fatalf("signed in as %q", who)
	}
	waitText(t, ctx, "#live", "Live")

	// A new inquiry appears without a reload, and the counters follow.
	if _, err := e.agent.PutSession(ctx0, "release-42", &hitl.SessionRequest{Agent: "deploy-bot"}); err != nil {
		t.Fatal(err)
	}
	deadline := int64(600)
	approval := e.ask(&hitl.InquiryRequest{Prompt: "Deploy v2.4 to production?", RequestType: hitl.RequestApproval,
		Session: "release-42", Origin: "ci", TimeoutSeconds: &deadline, FallbackPolicy: hitl.FallbackFail,
		Context: json.RawMessage(`{"diff":"+ retries: 3\n- retries: 1","checks":{"tests":"passed","coverage":0.87},"regions":["eu-west-1","us-east-1"]}`)})
	row := fmt.Sprintf("#inquiry-%d", approval.ID)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(row)))
	waitText(t, ctx, `[data-count="pending"]`, "1")
	if got := text(t, ctx, row+" .prompt"); got != approval.Prompt {
		t.Fatalf("row shows %q", got)
	}
	screenshot(t, ctx, shots, "inbox.png")

	// Answer an approval with a comment.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(row+" .prompt")),
		chromedp.WaitVisible(chromedp.CSS("#answer-form")),
	)
	waitText(t, ctx, "#live", "Live")
	screenshot(t, ctx, shots, "inquiry.png")
	docsPicture(t, ctx, "inbox-inquiry.png") // the README's picture of the inbox
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#comment"), "Checks are green, ship it"),
		chromedp.Click(chromedp.CSS("button.approve")),
		chromedp.WaitVisible(chromedp.CSS(".outcome")),
	)
	waitText(t, ctx, ".answer-text", "Approved — Checks are green, ship it")
	got := e.inquiry(approval.ID)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "ada" {
		t.Fatalf("after the click: %s by %v", got.Status, got.RespondedBy)
	}
	mustJSON(t, got.Response, `{"approved":true,"comment":"Checks are green, ship it"}`)
	if got.Comment == nil || *got.Comment != "Checks are green, ship it" {
		t.Errorf("the answer's comment is %v", got.Comment)
	}

	// A reload renders the same state from the server.
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, ctx, ".outcome", "Answered by ada")

	// A schema form: an invalid value comes back beside its field with what was typed, is
	// fixed and sent again.
	form := e.ask(&hitl.InquiryRequest{Prompt: "How many replicas, and who owns the rollout?", Session: "release-42",
		ResponseSchema: json.RawMessage(`{"type":"object","required":["owner","replicas"],"properties":{
			"owner":{"type":"string","title":"Owner","maxLength":40,"description":"Who is paged if it fails"},
			"replicas":{"type":"integer","title":"Replicas","minimum":1,"exclusiveMaximum":10},
			"regions":{"type":"array","title":"Regions","items":{"enum":["eu-west-1","us-east-1"]}},
			"notes":{"type":"array","title":"Notes","items":{"type":"string"}}}}`)})
	do(t, ctx,
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, form.ID)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="answer/owner"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/owner"]`), "ada"),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/replicas"]`), "10"),
		chromedp.Click(chromedp.CSS(`input[value="eu-west-1"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/notes"]`), "canary first"),
		chromedp.Click(chromedp.CSS(`[data-add-row]`)),
		chromedp.SendKeys(chromedp.CSS(`.list-row:nth-child(2) input`), "then the rest"),
		chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".field-error")),
	)
	invalid := get(t, ctx, chromedp.AttributeValue(chromedp.CSS(`input[name="answer/replicas"]`), "aria-invalid")).Value
	owner := get(t, ctx, chromedp.Value(chromedp.CSS(`input[name="answer/owner"]`)))
	if invalid != "true" || owner != "ada" {
		t.Fatalf("after the invalid answer: replicas aria-invalid=%q, owner kept as %q", invalid, owner)
	}
	errText := text(t, ctx, `input[name="answer/replicas"] + .field-error`)
	if !strings.Contains(errText, "10") {
		t.Fatalf("the error beside replicas says %q", errText)
	}
	if e.inquiry(form.ID).Status != hitl.StatusPending {
		t.Fatal("an invalid answer was recorded")
	}
	notes := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('input[name="answer/notes"]')].map(i => i.value)`))
	if strings.Join(notes, "|") != "canary first|then the rest|" {
		t.Fatalf("list rows kept as %q", notes)
	}
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS(`input[name="answer/replicas"]`), ""),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/replicas"]`), "3"),
		chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".outcome")),
	)
	mustJSON(t, e.inquiry(form.ID).Response, `{"owner":"ada","replicas":3,"regions":["eu-west-1"],"notes":["canary first","then the rest"]}`)

	// Two tabs on one inquiry: an answer in one shows in the other at once.
	venue := e.ask(&hitl.InquiryRequest{Prompt: "Which venue for the offsite?", Options: []hitl.Option{
		{Value: "lisbon", Label: "Lisbon", Description: "sunny, 2h flight"}, {Value: "oslo", Label: "Oslo"}, {Value: "rome", Label: "Rome"}}})
	venueURL := fmt.Sprintf("%s/inquiries/%d", e.URL, venue.ID)
	other := newTab(t, ctx, false)
	for _, tab := range []context.Context{ctx, other} {
		do(t, tab, chromedp.Navigate(venueURL), chromedp.WaitVisible(chromedp.CSS(`input[value="oslo"]`)))
		waitText(t, tab, "#live", "Live")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[value="oslo"]`)), chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".outcome")))
	do(t, other, chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, other, ".answer-text", "Oslo")
	waitText(t, other, "#status", "Answered")

	// A late submit, from a page that could not learn of the answer (no script), shows the
	// winner's answer rather than an error page.
	late := e.ask(&hitl.InquiryRequest{Prompt: "Roll back the canary?", RequestType: hitl.RequestApproval})
	noScript := newTab(t, ctx, false)
	do(t, noScript, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}),
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, late.ID)),
		chromedp.WaitVisible(chromedp.CSS("button.reject")))
	if _, err := e.Admin.Respond(ctx0, late.ID, json.RawMessage(`{"approved":true}`), "done from the CLI"); err != nil {
		t.Fatal(err)
	}
	do(t, noScript, chromedp.Click(chromedp.CSS("button.reject")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	waitText(t, noScript, ".notice", "admin answered first")
	waitText(t, noScript, ".answer-text", "Approved")

	// A prompt and a context full of markup are shown as text.
	xss := e.ask(&hitl.InquiryRequest{Prompt: `<script>alert(1)</script><img src=x onerror="alert(2)">`,
		Context: json.RawMessage(`{"html":"<img src=x onerror=alert(3)>","<b>key</b>":"</pre><script>alert(4)</script>"}`)})
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, xss.ID)), chromedp.WaitVisible(chromedp.CSS("h1.prompt")))
	if got := text(t, ctx, "h1.prompt"); got != xss.Prompt {
		t.Fatalf("the prompt shows as %q", got)
	}
	injected := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('main script, main img').length`))
	if injected != 0 {
		t.Fatalf("%d script or img elements came from the inquiry", injected)
	}
	waitText(t, ctx, ".json", "<img src=x onerror=alert(3)>")

	// An answer link: opening it (as a link scanner would) answers nothing; the confirm does.
	assigned := e.ask(&hitl.InquiryRequest{Prompt: "Approve the budget?", RequestType: hitl.RequestApproval, AssignedTo: []string{"grace"}})
	e.key("grace", hitl.RoleResponder) // hitl knows the link's person
	link, err := e.Admin.CreateAnswerLink(ctx0, assigned.ID, &hitl.AnswerLinkRequest{For: "grace"})
	if err != nil {
		t.Fatal(err)
	}
	fresh := newTab(t, ctx, true)
	do(t, fresh, chromedp.Navigate(link.URL+"?option=approve"), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	checked := get(t, fresh, chromedp.Evaluate[bool](`document.querySelector('input[name="approved"][value="true"]').checked`))
	if !checked {
		t.Fatal("the one-click option is not ticked")
	}
	if e.inquiry(assigned.ID).Status != hitl.StatusPending {
		t.Fatal("opening the answer link answered the inquiry")
	}
	do(t, fresh, chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".notice.ok")))
	if got := e.inquiry(assigned.ID); got.Status != hitl.StatusResponded || *got.RespondedBy != "grace" {
		t.Fatalf("after the confirm: %s by %v", got.Status, got.RespondedBy)
	}

	// The session's timeline tells the story in order.
	do(t, ctx, chromedp.Navigate(e.URL+"/sessions/release-42"), chromedp.WaitVisible(chromedp.CSS("#timeline")))
	lines := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline > li p:first-of-type')].map(p => p.textContent.replace(/\s+/g, ' ').trim())`))
	want := []string{"deploy-bot asked “Deploy v2.4", "ada answered “Deploy v2.4", "deploy-bot asked “How many", "ada answered “How many"}
	if len(lines) != len(want) {
		t.Fatalf("timeline:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("timeline line %d: %q, want it to start with %q", i, lines[i], w)
		}
	}
	screenshot(t, ctx, shots, "session.png")

	// On a phone's width the inbox still reads as a list, without sideways scrolling.
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(e.URL+"/?tab=responded"),
		chromedp.WaitVisible(chromedp.CSS("#list")))
	if wide := get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); wide {
		t.Error("the inbox is wider than a phone's screen")
	}
	screenshot(t, ctx, shots, "inbox-phone.png")
}

// A page follows the stream across a server restart: the browser reconnects with the last
// event it saw, and what happened meanwhile shows up without a reload.
func TestLiveUpdatesSurviveARestart(t *testing.T) {
	srv := testserver.Start(t)
	url, admin := srv.URL, srv.Admin
	ctx := newBrowser(t)
	signInWithForm(t, ctx, url, adminToken)
	waitText(t, ctx, "#live", "Live")

	srv.Stop()
	waitText(t, ctx, "#live", "Reconnecting")
	srv.Restart() // on the same data, at the same address
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Asked while the page was away"}, client.CreateOptions{})
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#inquiry-%d", inq.ID))))
	waitText(t, ctx, "#live", "Live")
}
