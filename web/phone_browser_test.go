package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/pushpeer"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// shownNotification is a notification as registration.getNotifications() gives it.
type shownNotification struct {
	Title   string   `json:"title"`
	Body    string   `json:"body"`
	Tag     string   `json:"tag"`
	Actions []string `json:"actions"`
}

// notificationsShown waits until the worker shows a notification with the tag whose title
// starts with title, and returns it.
func notificationsShown(t *testing.T, ctx context.Context, tag, title string) shownNotification {
	t.Helper()
	js := fmt.Sprintf(`navigator.serviceWorker.ready.then(r => r.getNotifications({tag: %q})).then(ns => ns.map(n => ({
		title: n.title, body: n.body, tag: n.tag, actions: (n.actions || []).map(a => a.action)})))`, tag)
	var last []shownNotification
	ok := testserver.WaitFor(15*time.Second, func() bool {
		last = get(t, ctx, chromedp.Evaluate[[]shownNotification](js, chromedp.EvalAwaitPromise))
		return len(last) == 1 && strings.HasPrefix(last[0].Title, title)
	})
	if !ok {
		t.Fatalf("no notification %q titled %q; shown: %+v", tag, title, last)
	}
	return last[0]
}

// TestPhoneInABrowser: the inbox registers its service worker in a real Chromium; the message
// the server pushed for a new approval (taken from the local push service, decrypted) is
// delivered to the worker, which shows it with its tag and Approve and Reject; the worker's
// action handler, run on that notification, answers the inquiry on the server; the server's
// next push replaces the notification with "answered by ada"; and once the server is gone, the
// installed app still opens and says the server cannot be reached.
func TestPhoneInABrowser(t *testing.T) {
	peer := pushpeer.New()
	t.Cleanup(peer.Close)
	e := start(t, testserver.Webhooks(server.WebhookConfig{AllowPrivate: true, AttemptTimeout: 2 * time.Second}))
	peer.RestrictTo(e.Engine().VAPIDPublicKey())
	ctx := newBrowser(t)

	// The manifest and the worker are served as browsers want them.
	resp, err := http.Get(e.URL + "/sw.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Service-Worker-Allowed") != "/" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("/sw.js: %d %v", resp.StatusCode, resp.Header)
	}

	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: e.URL,
	}); err != nil {
		t.Fatal(err)
	}
	registrations := make(chan serviceworker.RegistrationID, 10)
	go func() {
		for ev, err := range chromedp.Events(ctx, serviceworker.WorkerRegistrationUpdated) {
			if err != nil {
				return
			}
			for _, r := range ev.Registrations {
				if !r.IsDeleted && r.ScopeURL == e.URL+"/" {
					registrations <- r.RegistrationID
				}
			}
		}
	}()
	signInWithForm(t, ctx, e.URL, e.responderToken)
	if state := get(t, ctx, chromedp.Evaluate[string](`navigator.serviceWorker.ready.then(r => r.active.state)`, chromedp.EvalAwaitPromise)); state != "activated" {
		t.Fatalf("the worker is %q", state)
	}
	waitText(t, ctx, "#push-toggle", "Turn on notifications")
	manifest := get(t, ctx, chromedp.Evaluate[string](`fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json()).then(m => m.display + ' ' + m.start_url + ' ' + m.icons.length)`, chromedp.EvalAwaitPromise))
	if manifest != "standalone / 4" {
		t.Fatalf("manifest: %q", manifest)
	}
	// Chromium's own verdict on installing the page as an app: the manifest's name, icons,
	// start_url and display, and a worker that handles fetches.
	var installable []*page.InstallabilityError
	testserver.WaitFor(15*time.Second, func() bool {
		res, err := chromedp.Call(ctx, page.GetInstallabilityErrors, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		installable = res.InstallabilityErrors
		return len(installable) == 0
	})
	for _, ie := range installable {
		t.Errorf("Chromium finds the inbox not installable: %s %v", ie.ErrorID, ie.ErrorArguments)
	}
	if _, err := chromedp.Call(ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	var reg serviceworker.RegistrationID
	select {
	case reg = <-registrations:
	case <-time.After(15 * time.Second):
		t.Fatal("DevTools told of no registration of the inbox's worker")
	}

	// Ada's device: the local push service holds its keys and decrypts what the server sends.
	dev := peer.Subscribe()
	code, body := call(t, "POST", e.URL+"/v1/me/push-subscriptions", e.responderToken, dev.JSON())
	if code != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Ship the phone build?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	tag := fmt.Sprintf("hitl-inquiry-%d", inq.ID)
	deliver := func() {
		t.Helper()
		select {
		case m := <-peer.Received():
			if _, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
				Origin: e.URL, RegistrationID: reg, Data: string(m.Plaintext)}); err != nil {
				t.Fatal(err)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("the server pushed nothing; the push service refused: %v", peer.Rejected())
		}
	}
	deliver()
	shown := notificationsShown(t, ctx, tag, "Approval from deploy-bot")
	if shown.Body != inq.Prompt || strings.Join(shown.Actions, ",") != "approve,reject" {
		t.Fatalf("shown: %+v", shown)
	}

	// The worker's action handler, on the notification shown, as a click on Approve runs it.
	result := get(t, ctx, chromedp.Evaluate[map[string]any](fmt.Sprintf(`new Promise(resolve => {
		navigator.serviceWorker.addEventListener('message', e => { if (e.data.type === 'notification-action-result') resolve(e.data.result); });
		navigator.serviceWorker.ready.then(r => r.active.postMessage({type: 'notification-action', tag: %q, action: 'approve'}));
	})`, tag), chromedp.EvalAwaitPromise))
	if result["ok"] != true || result["status"] != float64(200) {
		t.Fatalf("the action: %v", result)
	}
	answered, err := e.agent.Inquiry(context.Background(), inq.ID)
	if err != nil || answered.Status != hitl.StatusResponded || *answered.RespondedBy != "ada" || string(answered.Response) != `{"approved":true}` {
		t.Fatalf("after Approve: %+v %v", answered, err)
	}
	notificationsShown(t, ctx, tag, "Approved")

	// The server's follow-up replaces the notification.
	deliver()
	if n := notificationsShown(t, ctx, tag, "Answered by ada"); len(n.Actions) != 0 {
		t.Fatalf("the answered notification still has buttons: %+v", n)
	}

	// Offline: an open page says so when the device loses its network; once the server is
	// gone, the app opens and says so.
	do(t, ctx, chromedp.Navigate(e.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#tabs")))
	waitText(t, ctx, "#live", "Live") // the page's script runs and follows the stream before the network goes
	if _, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#live", "the server cannot be reached")
	if _, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: false, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatal(err)
	}

	// A shared phone: ada signs out (the page's script holds the form for the device's
	// subscription, then sends it). The worker kept only the shell, nothing of her inbox, so
	// offline the next person sees the offline page, not her questions.
	do(t, ctx, chromedp.Navigate(e.URL+"/inquiries/"+strconv.FormatInt(inq.ID, 10)), chromedp.WaitVisible(chromedp.CSS("#sign-out")))
	do(t, ctx, chromedp.Click(chromedp.CSS("#sign-out button")), chromedp.WaitVisible(chromedp.CSS("#token")))
	cached := get(t, ctx, chromedp.Evaluate[[]string](`caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys()))))
		.then(lists => lists.flat().map(r => new URL(r.url).pathname).sort())`, chromedp.EvalAwaitPromise))
	if strings.Join(cached, " ") != "/manifest.webmanifest /static/app.css /static/icon.svg /static/offline.html" {
		t.Fatalf("the worker's cache holds more than the shell: %v", cached)
	}
	e.Stop()
	for _, path := range []string{"/", "/inquiries/" + strconv.FormatInt(inq.ID, 10)} {
		do(t, ctx, chromedp.Navigate(e.URL+path), chromedp.WaitVisible(chromedp.CSS("#offline")))
		if got := text(t, ctx, "#offline h1"); got != "The server cannot be reached" {
			t.Fatalf("offline page at %s: %q", path, got)
		}
		if page := text(t, ctx, "body"); strings.Contains(page, inq.Prompt) || strings.Contains(page, "ada") {
			t.Fatalf("offline at %s, the page shows what ada saw: %q", path, page)
		}
	}
}

// call sends one request with a bearer token and returns the status and body.
func call(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b json.RawMessage
	json.NewDecoder(resp.Body).Decode(&b)
	return resp.StatusCode, string(b)
}
