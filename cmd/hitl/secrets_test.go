package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/notify"
)

// rawSecrets reads the secrets as the database holds them, by place ("webhook wh_…").
func rawSecrets(t *testing.T, db string) map[string]string {
	t.Helper()
	return rawRows(t, db, `SELECT 'setting ' || name, value FROM settings WHERE name <> 'secret_key_id' UNION ALL SELECT 'webhook ' || id, secret FROM webhooks
		UNION ALL SELECT 'chat webhook ' || id, url FROM chat_webhooks`)
}

// rawDeliveries reads where each delivery goes and what it carries, as the database holds
// them, by delivery ID.
func rawDeliveries(t *testing.T, db string) map[string]string {
	t.Helper()
	return rawRows(t, db, "SELECT id, url || ' ' || address || ' ' || payload FROM deliveries")
}

// rawRows runs a query of two text columns on db and returns the second by the first.
func rawRows(t *testing.T, db, query string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ctx := context.Background()
	if server.IsPostgres(db) {
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, query)
		var place, value string
		_, err = pgx.ForEachRow(rows, []any{&place, &value}, func() error { out[place] = value; return nil })
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var place, value string
		if err := rows.Scan(&place, &value); err != nil {
			t.Fatal(err)
		}
		out[place] = value
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func newSecretKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// signedReceiver is a webhook endpoint that checks each delivery's signature with secret
// and sends the outcome on got.
func signedReceiver(t *testing.T) (url string, secret *atomic.Pointer[string], got chan error) {
	got = make(chan error, 100)
	secret = new(atomic.Pointer[string])
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			h[k] = r.Header.Get(k)
		}
		got <- notify.Verify(*secret.Load(), h, body, time.Now(), 5*time.Minute)
	}))
	t.Cleanup(rc.Close)
	return rc.URL, secret, got
}

// chatRoom is a chat service's incoming webhook on loopback, whose URL carries its token like
// Slack's and Discord's: each message posted to it comes on got, with the path it was posted to.
func chatRoom(t *testing.T) (url, token string, got chan string) {
	got = make(chan string, 100)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- r.URL.Path + " " + string(body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	token = "room-token-" + strings.TrimRight(base64.URLEncoding.EncodeToString([]byte(newSecretKey()[:12])), "=")
	return rc.URL + "/api/webhooks/1/" + token, token, got
}

// TestSecretsAtRest: a database whose secrets were written without a key, then served with
// one, then rotated to another, on a SQLite file and on PostgreSQL. What the database holds
// is checked with SQL; what users see (signed deliveries, the callback secret, answer links,
// the audit key) stays the same throughout.
func TestSecretsAtRest(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			testSecretsAtRest(t, store == "postgres")
		})
	}
}

func testSecretsAtRest(t *testing.T, postgres bool) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := []testserver.Option{testserver.AllowPrivate()}
	if postgres {
		opts = append(opts, testserver.Postgres())
	} else {
		opts = append(opts, testserver.DB(filepath.Join(dir, "hitl.db")))
	}
	hookURL, hookSecret, got := signedReceiver(t)
	roomURL, roomToken, posted := chatRoom(t)
	// roomPost waits for the room's message about the inquiry asking prompt.
	roomPost := func(prompt string) {
		t.Helper()
		msg := testserver.Receive(t, posted, 10*time.Second, "the room's message about "+prompt)
		if want := "/api/webhooks/1/" + roomToken + " "; !strings.HasPrefix(msg, want) || !strings.Contains(msg, prompt) {
			t.Fatalf("the room was posted %q, want a message about %q at %s", msg, prompt, want)
		}
	}

	// Written without a key: plaintext, as before.
	s := testserver.Start(t, opts...)
	db := s.DB
	w, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hookURL, Events: []string{hitl.EventInquiryCreated}})
	if err != nil {
		t.Fatal(err)
	}
	room, err := s.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatDiscord, URL: roomURL})
	if err != nil {
		t.Fatal(err)
	}
	hookSecret.Store(&w.Secret)
	callback, err := s.Admin.CallbackSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	auditKey := getJSON(t, s.URL+"/v1/audit/key", "")
	agent, _ := s.Key(hitl.KeyRequest{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}})
	s.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}}) // the answer link's person
	inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testserver.Receive(t, got, 10*time.Second, "the first delivery"); err != nil {
		t.Fatalf("the delivery without a key: %v", err)
	}
	roomPost("Ship?")
	link, err := s.Admin.CreateAnswerLink(ctx, inq.ID, &hitl.AnswerLinkRequest{For: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	plain := rawSecrets(t, db)
	if plain["webhook "+w.ID] != w.Secret || plain["chat webhook "+room.ID] != roomURL || plain["setting callback_secret"] != callback ||
		!strings.HasPrefix(plain["setting link_secret"], "whsec_") || plain["setting audit_key"] == "" || len(plain["setting vapid_private_key"]) != 43 ||
		len(plain["setting receipt_signing_key"]) != 43 || plain["setting receipt_signing_key_previous"] != "" {
		t.Fatalf("the secrets without a key: %v", plain)
	}
	s.Stop()

	// stillTheSame: a server on the database signs and shows what it did before.
	stillTheSame := func(s *testserver.Server, when string) {
		t.Helper()
		if c, err := s.Admin.CallbackSecret(ctx); err != nil || c != callback {
			t.Fatalf("%s: the callback secret %q (%v), want %q", when, c, err, callback)
		}
		if k := getJSON(t, s.URL+"/v1/audit/key", ""); string(k) != string(auditKey) {
			t.Fatalf("%s: the audit key %s, want %s", when, k, auditKey)
		}
		res, err := http.Get(s.URL + "/a/" + link.Token)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: the answer link made before: %d", when, res.StatusCode)
		}
		if _, _, err := s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship? " + when}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := testserver.Receive(t, got, 10*time.Second, "a delivery "+when); err != nil {
			t.Fatalf("%s: the delivery's signature: %v", when, err)
		}
		roomPost("Ship? " + when)
		// The chat webhook's URL is shown to admins as it was given, and no delivery holds it.
		if rooms, err := s.Admin.ChatWebhooks(ctx); err != nil || len(rooms) != 1 || rooms[0].URL != roomURL {
			t.Fatalf("%s: the chat webhooks listed: %v, want %s's URL %s", when, err, room.ID, roomURL)
		}
		for id, d := range rawDeliveries(t, db) {
			if strings.Contains(d, roomToken) {
				t.Fatalf("%s: delivery %s holds the chat webhook's URL: %s", when, id, d)
			}
		}
	}

	// Served with a key: every secret is encrypted at the start, and works as before.
	keyFile := filepath.Join(dir, "secret.key")
	if err := os.WriteFile(keyFile, []byte(newSecretKey()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withKey := func(key string) testserver.Option {
		return testserver.Configure(func(c *server.Config) { c.DB, c.SecretKey, c.Webhooks.AllowPrivate = db, key, true })
	}
	s = testserver.Start(t, withKey(keyFile))
	sealed := rawSecrets(t, db)
	for place, v := range sealed {
		if !strings.HasPrefix(v, "enc:v1:") || v == plain[place] {
			t.Fatalf("%s after a start with a key: %q, want it encrypted", place, v)
		}
	}
	if len(sealed) != len(plain) {
		t.Fatalf("the secrets after a start with a key: %v, want those of %v", sealed, plain)
	}
	stillTheSame(s, "with a key")
	// A webhook created with the key is stored encrypted, and signs with its secret.
	w2, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hookURL + "/second", Events: []string{hitl.EventInquiryCreated}})
	if err != nil {
		t.Fatal(err)
	}
	if v := rawSecrets(t, db)["webhook "+w2.ID]; !strings.HasPrefix(v, "enc:v1:") || strings.Contains(v, w2.Secret) {
		t.Fatalf("a webhook created with a key is stored as %q", v)
	}
	if err := s.Admin.DeleteWebhook(ctx, w2.ID); err != nil {
		t.Fatal(err)
	}
	// So is a chat webhook; the event log of its deletion keeps its URL's scheme and host.
	room2, err := s.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: roomURL + "/second"})
	if err != nil {
		t.Fatal(err)
	}
	if v := rawSecrets(t, db)["chat webhook "+room2.ID]; !strings.HasPrefix(v, "enc:v1:") || strings.Contains(v, roomToken) {
		t.Fatalf("a chat webhook created with a key is stored as %q", v)
	}
	if err := s.Admin.DeleteChatWebhook(ctx, room2.ID); err != nil {
		t.Fatal(err)
	}
	host := strings.SplitN(roomURL, "/", 4)
	if deleted := getJSON(t, s.URL+"/v1/events?type=chat_webhook.deleted", testserver.AdminToken); !strings.Contains(string(deleted), `"url":"`+host[0]+"//"+host[2]+`/…"`) {
		t.Fatalf("the deletion's event: %s, want the URL's scheme and host %s", deleted, host[2])
	}
	s.Stop()
	sealed = rawSecrets(t, db)

	// refused: a server on the database does not start, says why, and changes nothing.
	refused := func(key, want string) {
		t.Helper()
		if _, err := openServer(db, key); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("refused with %q, want it to say %q", err, want)
		}
		if now := rawSecrets(t, db); !maps.Equal(now, sealed) {
			t.Fatalf("a refused start changed the secrets: %v, were %v", now, sealed)
		}
	}
	refused("", "the database holds encrypted secrets")
	refused("", "HITL_SECRET_KEY is not set")
	refused(newSecretKey(), "HITL_SECRET_KEY does not decrypt the secrets in the database")

	// Rotation: a wrong --old changes nothing; the right one re-encrypts every secret.
	newKey := newSecretKey()
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", newSecretKey(), "--new", newKey); code != exitError || !strings.Contains(errOut, "--old does not decrypt the secrets") {
		t.Fatalf("rotate with a wrong --old: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--new", newKey); code != exitError || !strings.Contains(errOut, "--old is not set") {
		t.Fatalf("rotate without --old: %d %q", code, errOut)
	}
	if now := rawSecrets(t, db); !maps.Equal(now, sealed) {
		t.Fatalf("a failed rotation changed the secrets: %v, were %v", now, sealed)
	}
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", keyFile, "--new", newKey); code != 0 || !strings.Contains(errOut, "Encrypted 8 secrets") { // the receipt signing keys among them
		t.Fatalf("rotate: %d %q", code, errOut)
	}
	for place, v := range rawSecrets(t, db) {
		if !strings.HasPrefix(v, "enc:v1:") || v == sealed[place] {
			t.Fatalf("%s after the rotation: %q, want it encrypted anew", place, v)
		}
	}
	sealed = rawSecrets(t, db)
	refused(keyFile, "HITL_SECRET_KEY does not decrypt")
	s = testserver.Start(t, withKey(newKey))
	stillTheSame(s, "after the rotation")

	// Rotated again while that server runs (the README says to stop it first): the server
	// writes no secret under its old key — its secrets would open under neither — and a
	// restart with the new key finds everything.
	thirdKey := newSecretKey()
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", newKey, "--new", thirdKey); code != 0 {
		t.Fatalf("rotate beside a running server: %d %q", code, errOut)
	}
	if _, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hookURL, Events: []string{"*"}}); err == nil || !strings.Contains(err.Error(), "restart it with the new HITL_SECRET_KEY") {
		t.Fatalf("a webhook created by a server whose key was rotated away: %v", err)
	}
	if _, err := s.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatDiscord, URL: roomURL}); err == nil || !strings.Contains(err.Error(), "restart it with the new HITL_SECRET_KEY") {
		t.Fatalf("a chat webhook created by a server whose key was rotated away: %v", err)
	}
	s.Stop()
	sealed = rawSecrets(t, db)
	refused(newKey, "HITL_SECRET_KEY does not decrypt")
	s = testserver.Start(t, withKey(thirdKey))
	stillTheSame(s, "after a rotation beside a running server")
	s.Stop()
	newKey = thirdKey

	// And back to plaintext, by rotating to no key.
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", newKey); code != 0 || !strings.Contains(errOut, "stored in plaintext now") {
		t.Fatalf("rotate to plaintext: %d %q", code, errOut)
	}
	if now := rawSecrets(t, db); !maps.Equal(now, plain) {
		t.Fatalf("the secrets rotated to plaintext: %v, want %v", now, plain)
	}
	log, err := openServer(db, "")
	if err != nil || !strings.Contains(log, "secrets are stored in plaintext in the database; set HITL_SECRET_KEY to encrypt them") ||
		strings.Contains(log, "now encrypted") {
		t.Fatalf("a start without a key: %v, log:\n%s", err, log)
	}
	s = testserver.Start(t, withKey(""))
	stillTheSame(s, "back in plaintext")
	s.Stop()
	if log, err := openServer(db, newKey); err != nil || strings.Contains(log, "set HITL_SECRET_KEY to encrypt them") ||
		!strings.Contains(log, "secrets stored in plaintext are now encrypted with HITL_SECRET_KEY") {
		t.Fatalf("a start with a key: %v, log:\n%s", err, log)
	}
}

// openServer starts a server on db with HITL_SECRET_KEY=key and stops it at once; it returns
// what the server logged, or why it did not start.
func openServer(db, key string) (string, error) {
	var log bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Open(ctx, server.Config{Addr: "127.0.0.1:0", DB: db, SecretKey: key, AdminToken: testserver.AdminToken},
		slog.New(slog.NewTextHandler(&log, nil)))
	cancel()
	if err != nil {
		return "", err
	}
	err = srv.Serve(ctx)
	return log.String(), err
}

// TestSecretsRotateBadInput: rotate's mistakes in how it is called are usage errors (exit 2)
// that name the flag, and touch no database.
func TestSecretsRotateBadInput(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("too short"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "none.db")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--db", db}, exitUsage, "give --new"},
		{[]string{"--db", db, "--new", "c2hvcnQ="}, exitUsage, "--new: the base64 decodes to 5 bytes"},
		{[]string{"--db", db, "--new", "not base64!"}, exitUsage, "--new: neither the path of a key file nor 32 bytes in base64"},
		{[]string{"--db", db, "--old", filepath.Join(dir, "missing.key"), "--new", newSecretKey()}, exitUsage, "--old: cannot read the key file"},
		{[]string{"--db", db, "--old", short, "--new", newSecretKey()}, exitUsage, "holds neither 32 bytes in base64 nor 32 raw bytes"},
		{[]string{"--db", db, "--new", newSecretKey()}, exitUsage, "no database there"},
		{[]string{"--db", db, "--new", newSecretKey(), "extra"}, exitUsage, "no arguments"},
	} {
		code, _, errOut := cli(t, append([]string{"secrets", "rotate"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("secrets rotate %v: %d %q, want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("a database was created: %v", err)
	}
}

// TestAnAlteredWebhookSecretIsNotSent: a webhook secret altered in the database while a
// server with a key runs is not used to sign, nor is the delivery sent unsigned: the attempt
// fails, saying why, and is retried.
func TestAnAlteredWebhookSecretIsNotSent(t *testing.T) {
	ctx := context.Background()
	hookURL, hookSecret, got := signedReceiver(t)
	s := testserver.Start(t, testserver.AllowPrivate(), testserver.Configure(func(c *server.Config) { c.SecretKey = newSecretKey() }))
	w, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hookURL, Events: []string{hitl.EventInquiryCreated}})
	if err != nil {
		t.Fatal(err)
	}
	hookSecret.Store(&w.Secret)
	alterSealed(t, s.DB, "UPDATE webhooks SET secret = ? WHERE id = ?", "webhook "+w.ID, w.ID)
	if _, _, err := s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var d *hitl.Delivery
	testserver.Eventually(t, 10*time.Second, "an attempt recorded", func() bool {
		page, err := s.Admin.Deliveries(ctx, client.DeliveryOptions{WebhookID: w.ID})
		if err != nil || len(page.Data) != 1 || page.Data[0].Attempts == 0 {
			return false
		}
		d = page.Data[0]
		return true
	})
	if d.Status != hitl.DeliveryPending || !strings.Contains(d.LastError, "HITL_SECRET_KEY does not decrypt the secrets in the database (webhook "+w.ID) {
		t.Fatalf("the delivery: %+v", d)
	}
	select {
	case err := <-got:
		t.Fatalf("the receiver was sent a delivery (signature check: %v)", err)
	default:
	}
}

// alterSealed changes the end of the encrypted secret at place in the SQLite database db, by
// update (which takes the value and id), as someone with the database but not the key might.
func alterSealed(t *testing.T, db, update, place, id string) {
	t.Helper()
	sealed := rawSecrets(t, db)[place]
	if !strings.HasPrefix(sealed, "enc:v1:") {
		t.Fatalf("%s is stored as %q, not encrypted", place, sealed)
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(update, sealed[:len(sealed)-4]+"AAA=", id); err != nil {
		t.Fatal(err)
	}
}

// TestAnAlteredChatWebhookURLIsNotSent: a chat webhook's URL altered in the database while a
// server with a key runs is not posted to: the notification's attempt fails, saying why, and
// is retried; the chat webhooks are still listed, that one without its URL. A message retried
// by hand after its chat webhook was deleted fails, saying so.
func TestAnAlteredChatWebhookURLIsNotSent(t *testing.T) {
	ctx := context.Background()
	roomURL, _, posted := chatRoom(t)
	s := testserver.Start(t, testserver.AllowPrivate(), testserver.Configure(func(c *server.Config) { c.SecretKey = newSecretKey() }))
	room, err := s.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: roomURL})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := s.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: roomURL + "/gone"})
	if err != nil {
		t.Fatal(err)
	}
	alterSealed(t, s.DB, "UPDATE chat_webhooks SET url = ? WHERE id = ?", "chat webhook "+room.ID, room.ID)
	inq, _, err := s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// notification waits for the inquiry's notification to recipient to be attempted.
	notification := func(recipient string, attempted func(*hitl.Delivery) bool) (n *hitl.Delivery) {
		t.Helper()
		testserver.Eventually(t, 10*time.Second, "an attempt to "+recipient+" recorded", func() bool {
			ns, err := s.Admin.Notifications(ctx, inq.ID)
			if err != nil {
				return false
			}
			for _, d := range ns {
				if d.Recipient == recipient && attempted(d) {
					n = d
					return true
				}
			}
			return false
		})
		return n
	}
	if msg := testserver.Receive(t, posted, 10*time.Second, "the message to the other room"); !strings.HasSuffix(strings.Fields(msg)[0], "/gone") {
		t.Fatalf("posted %q, want it posted to the other room only", msg)
	}
	delivered := notification(gone.ID, func(d *hitl.Delivery) bool { return d.Status == hitl.DeliveryDelivered })
	n := notification(room.ID, func(d *hitl.Delivery) bool { return d.Attempts > 0 })
	if n.Status != hitl.DeliveryPending ||
		!strings.Contains(n.LastError, "the URL of chat webhook "+room.ID+" cannot be read, so nothing was posted: HITL_SECRET_KEY does not decrypt the secrets in the database (chat webhook "+room.ID) {
		t.Fatalf("the notification: %+v", n)
	}
	select {
	case msg := <-posted:
		t.Fatalf("the room was posted %q", msg)
	default:
	}
	if rooms, err := s.Admin.ChatWebhooks(ctx); err != nil || len(rooms) != 2 || rooms[0].ID != room.ID || rooms[0].URL != "" || rooms[1].URL != roomURL+"/gone" {
		t.Fatalf("the chat webhooks listed: %+v, %v; want %s without its URL", rooms, err, room.ID)
	}

	if err := s.Admin.DeleteChatWebhook(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Admin.RetryDelivery(ctx, delivered.ID); err != nil {
		t.Fatal(err)
	}
	retried := notification(gone.ID, func(d *hitl.Delivery) bool { return d.Attempts > delivered.Attempts })
	if retried.Status != hitl.DeliveryFailed || retried.LastError != "the chat webhook "+gone.ID+" was deleted: there is no URL to post to" {
		t.Fatalf("retried after its chat webhook was deleted: %+v", retried)
	}
	select {
	case msg := <-posted:
		t.Fatalf("posted %q after the chat webhook was deleted", msg)
	default:
	}
}
