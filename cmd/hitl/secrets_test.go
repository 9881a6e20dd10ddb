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
	const query = "SELECT 'setting ' || name, value FROM settings UNION ALL SELECT 'webhook ' || id, secret FROM webhooks"
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

	// Written without a key: plaintext, as before.
	s := testserver.Start(t, opts...)
	db := s.DB
	w, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hookURL, Events: []string{hitl.EventInquiryCreated}})
	if err != nil {
		t.Fatal(err)
	}
	hookSecret.Store(&w.Secret)
	callback, err := s.Admin.CallbackSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	auditKey := getJSON(t, s.URL+"/v1/audit/key", "")
	inq, _, err := s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := testserver.Receive(t, got, 10*time.Second, "the first delivery"); err != nil {
		t.Fatalf("the delivery without a key: %v", err)
	}
	link, err := s.Admin.CreateAnswerLink(ctx, inq.ID, &hitl.AnswerLinkRequest{For: "ada"})
	if err != nil {
		t.Fatal(err)
	}
	plain := rawSecrets(t, db)
	if plain["webhook "+w.ID] != w.Secret || plain["setting callback_secret"] != callback ||
		!strings.HasPrefix(plain["setting link_secret"], "whsec_") || plain["setting audit_key"] == "" {
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
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", keyFile, "--new", newKey); code != 0 || !strings.Contains(errOut, "Encrypted 4 secrets") {
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
	s.Stop()

	// And back to plaintext, by rotating to no key.
	if code, _, errOut := cli(t, "secrets", "rotate", "--db", db, "--old", newKey); code != 0 || !strings.Contains(errOut, "stored in plaintext now") {
		t.Fatalf("rotate to plaintext: %d %q", code, errOut)
	}
	if now := rawSecrets(t, db); !maps.Equal(now, plain) {
		t.Fatalf("the secrets rotated to plaintext: %v, want %v", now, plain)
	}
	log, err := openServer(db, "")
	if err != nil || !strings.Contains(log, "secrets are stored in plaintext in the database; set HITL_SECRET_KEY to encrypt them") {
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
	sealed := rawSecrets(t, s.DB)["webhook "+w.ID]
	conn, err := sql.Open("sqlite", "file:"+s.DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	altered := sealed[:len(sealed)-4] + "AAA="
	if _, err := conn.Exec("UPDATE webhooks SET secret = ? WHERE id = ?", altered, w.ID); err != nil {
		t.Fatal(err)
	}
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
