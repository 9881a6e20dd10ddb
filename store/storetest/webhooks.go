package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

func newDelivery(n int, webhookID, target string) *hitl.Delivery {
	at := base.Add(time.Duration(n) * time.Second)
	return &hitl.Delivery{
		ID: fmt.Sprintf("msg_%d", n), Kind: hitl.DeliveryWebhook, WebhookID: webhookID, URL: "https://example.com/hook",
		Target: target, EventSeq: int64(n), EventID: fmt.Sprintf("ev-%d", n), EventType: hitl.EventInquiryCreated,
		Payload: json.RawMessage(`{"n":` + fmt.Sprint(n) + `}`), Status: hitl.DeliveryPending, NextAttemptAt: &at,
		CreatedAt: at, RetryFrom: at,
	}
}

func testWebhooks(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	w := &hitl.Webhook{ID: "wh_1", URL: "https://example.com/hook", Events: []string{hitl.EventInquiryCreated},
		Description: "ops", Secret: "whsec_c2VjcmV0", CreatedBy: "root", CreatedAt: base}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertWebhook(w) }))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertWebhook(w) }); code(err) != hitl.EConflict {
		t.Fatalf("second insert of the same ID: %v, want conflict", err)
	}
	got, err := s.Webhook(ctx, "wh_1")
	must(t, err)
	if got.Secret != "" || got.URL != w.URL || got.Description != "ops" || len(got.Events) != 1 || !got.CreatedAt.Equal(base) {
		t.Fatalf("read back %+v (a store never returns the secret)", got)
	}
	list, err := s.Webhooks(ctx)
	must(t, err)
	if len(list) != 1 || list[0].Secret != "" {
		t.Fatalf("list %+v", list)
	}

	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertDelivery(newDelivery(1, "wh_1", "wh_1")) }))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		d := newDelivery(2, "", "example.com")
		d.Kind, d.Session = hitl.DeliverySessionCallback, "s1"
		return tx.InsertDelivery(d)
	}))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertDelivery(newDelivery(1, "wh_1", "wh_1")) }); code(err) != hitl.EConflict {
		t.Fatalf("duplicate delivery ID: %v, want conflict", err)
	}
	ds, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{WebhookID: "wh_1", Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(ds) != 1 || ds[0].ID != "msg_1" || string(ds[0].Payload) != `{"n":1}` || ds[0].Secret != "" {
		t.Fatalf("webhook's deliveries %+v", ds)
	}
	ds, _, err = s.Deliveries(ctx, hitl.DeliveryFilter{Session: "s1", Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(ds) != 1 || ds[0].WebhookID != "" || ds[0].Kind != hitl.DeliverySessionCallback {
		t.Fatalf("session's deliveries %+v", ds)
	}
	page1, next, err := s.Deliveries(ctx, hitl.DeliveryFilter{Page: hitl.Page{Limit: 1}})
	must(t, err)
	page2, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{Page: hitl.Page{Limit: 1, Cursor: next}})
	must(t, err)
	if len(page1) != 1 || len(page2) != 1 || page1[0].ID != "msg_2" || page2[0].ID != "msg_1" {
		t.Fatalf("pages newest first: %v then %v", page1, page2)
	}

	// Deleting a webhook takes its deliveries with it.
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteWebhook("wh_1") })
	all, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(all) != 1 || all[0].ID != "msg_2" {
		t.Fatalf("after delete %+v", all)
	}
}

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func testClaimDeliveries(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.InsertWebhook(&hitl.Webhook{ID: "wh_a", URL: "https://a.example/", Events: []string{}, Secret: "whsec_YQ==", CreatedBy: "root", CreatedAt: base})
	}))
	for n, target := range map[int]string{1: "wh_a", 2: "wh_a", 3: "b.example", 50: "wh_a"} {
		d := newDelivery(n, "", target)
		if target == "wh_a" {
			d.WebhookID = "wh_a"
		}
		if n == 1 { // the trace context its inquiry keeps, carried on by every attempt
			d.Traceparent, d.Tracestate = traceparent, "vendor=opaque"
		}
		must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertDelivery(d) }))
	}
	claim := func(c hitl.Claim) []*hitl.Delivery {
		t.Helper()
		var ds []*hitl.Delivery
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { ds, err = tx.ClaimDeliveries(c); return err }))
		return ds
	}
	now := base.Add(10 * time.Second)
	lease := now.Add(15 * time.Second)
	// Due: 1, 2, 3 (50 is later). wh_a has no room: its 2 slots are taken.
	got := claim(hitl.Claim{Now: now, LeaseUntil: lease, Limit: 10, PerTarget: 2, InFlight: map[string]int{"wh_a": 2}})
	if len(got) != 1 || got[0].ID != "msg_3" || got[0].Secret != "" {
		t.Fatalf("claim with wh_a full: %+v", got)
	}
	// Room for one of each target: wh_a's first due.
	got = claim(hitl.Claim{Now: now, LeaseUntil: lease, Limit: 10, PerTarget: 1})
	if len(got) != 1 || got[0].ID != "msg_1" || got[0].Secret != "whsec_YQ==" || string(got[0].Payload) != `{"n":1}` ||
		got[0].Traceparent != traceparent || got[0].Tracestate != "vendor=opaque" {
		t.Fatalf("claim of one per target: %+v", got)
	}
	if more := claim(hitl.Claim{Now: now, LeaseUntil: lease, Limit: 10, PerTarget: 5}); len(more) != 1 || more[0].ID != "msg_2" {
		t.Fatalf("claim of the rest: %+v", more)
	}
	if again := claim(hitl.Claim{Now: now, LeaseUntil: lease, Limit: 10, PerTarget: 5}); len(again) != 0 {
		t.Fatalf("claimed twice before the lease ended: %+v", again)
	}
	// A lease that ends makes the delivery due again: its dispatcher died.
	if again := claim(hitl.Claim{Now: lease, LeaseUntil: lease.Add(time.Minute), Limit: 10, PerTarget: 5}); len(again) != 3 {
		t.Fatalf("after the lease: %d claimed, want 3", len(again))
	}

	d := got[0]
	at := now.Add(time.Second)
	d.Status, d.Attempts, d.NextAttemptAt, d.LastAttemptAt, d.DeliveredAt = hitl.DeliveryDelivered, 1, nil, &at, &at
	d.LastStatus, d.LastResponse = 204, "ok"
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.SaveAttempt(d) }))
	ds, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{Status: hitl.DeliveryDelivered, Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(ds) != 1 || ds[0].Attempts != 1 || ds[0].LastStatus != 204 || ds[0].NextAttemptAt != nil || !ds[0].DeliveredAt.Equal(at) {
		t.Fatalf("after the attempt: %+v", ds)
	}

	var retried *hitl.Delivery
	if err := s.Update(ctx, func(tx hitl.Tx) (err error) { _, err = tx.RetryDelivery("msg_2", at); return err }); code(err) != hitl.EConflict {
		t.Fatalf("retrying a pending delivery: %v, want conflict", err)
	}
	if err := s.Update(ctx, func(tx hitl.Tx) (err error) { _, err = tx.RetryDelivery("msg_404", at); return err }); code(err) != hitl.ENotFound {
		t.Fatalf("retrying an unknown delivery: %v, want not found", err)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { retried, err = tx.RetryDelivery(d.ID, at); return err }))
	if retried.Status != hitl.DeliveryPending || !retried.NextAttemptAt.Equal(at) || !retried.RetryFrom.Equal(at) {
		t.Fatalf("retried %+v", retried)
	}
	if again := claim(hitl.Claim{Now: at, LeaseUntil: lease, Limit: 10, PerTarget: 5}); len(again) != 1 || again[0].ID != d.ID || again[0].Attempts != 1 {
		t.Fatalf("claim after the retry by hand: %+v", again)
	}
}

func testOutboxCursor(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	seq, err := s.OutboxCursor(ctx)
	must(t, err)
	if seq != 0 {
		t.Fatalf("an empty store's cursor is %d", seq)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.AdvanceOutboxCursor(0, 7) }))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.AdvanceOutboxCursor(0, 9) }); code(err) != hitl.EConflict {
		t.Fatalf("advancing from a stale position: %v, want conflict", err)
	}
	// A change that fails after moving the cursor leaves it where it was.
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.AdvanceOutboxCursor(7, 12); err != nil {
			return err
		}
		return hitl.Errorf(hitl.EInvalid, "changed my mind")
	}); code(err) != hitl.EInvalid {
		t.Fatal(err)
	}
	if seq, _ = s.OutboxCursor(ctx); seq != 7 {
		t.Fatalf("cursor %d, want 7", seq)
	}

	var first, second string
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { first, err = tx.Setting("callback_secret", "one"); return err }))
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { second, err = tx.Setting("callback_secret", "two"); return err }))
	if first != "one" || second != "one" {
		t.Fatalf("setting: %q then %q, want the first value kept", first, second)
	}

	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertSession(newSession("k1")) }))
	ss, err := s.SessionsByKey(ctx, []string{"k1", "missing"})
	must(t, err)
	if len(ss) != 1 || ss[0].Key != "k1" {
		t.Fatalf("sessions by key: %+v", ss)
	}
}

func testBrokerBacklog(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	for i, channel := range []string{hitl.BrokerAMQP, hitl.BrokerAMQP, hitl.BrokerNATS} {
		must(t, s.Update(ctx, func(tx hitl.Tx) error {
			d := newDelivery(i+1, "", channel)
			d.Kind, d.Channel, d.URL = hitl.DeliveryBroker, channel, ""
			return tx.InsertDelivery(d)
		}))
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertDelivery(newDelivery(9, "", "example.com")) })) // not a broker's
	confirmed := newDelivery(1, "", hitl.BrokerAMQP)
	confirmed.Kind, confirmed.Channel, confirmed.Status, confirmed.NextAttemptAt = hitl.DeliveryBroker, hitl.BrokerAMQP, hitl.DeliveryDelivered, nil
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.SaveAttempt(confirmed) }))
	backlog, err := s.PendingDeliveries(ctx, hitl.DeliveryBroker)
	must(t, err)
	if len(backlog) != 2 || backlog[hitl.BrokerAMQP] != 1 || backlog[hitl.BrokerNATS] != 1 {
		t.Fatalf("broker backlog %v, want amqp: 1, nats: 1", backlog)
	}
}

// testStoredSecrets: the secrets are listed as stored, in one order, and replaced one at a
// time; a change that fails after replacing one keeps none of it.
func testStoredSecrets(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	list := func(names ...string) (out []hitl.StoredSecret) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { out, err = tx.StoredSecrets(names); return err }))
		return out
	}
	if got := list("link_secret"); len(got) != 0 {
		t.Fatalf("secrets of an empty store: %+v", got)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		for _, id := range []string{"wh_b", "wh_a"} {
			if err := tx.InsertWebhook(&hitl.Webhook{ID: id, URL: "https://a.example/", Events: []string{}, Secret: "whsec_" + id, CreatedBy: "root", CreatedAt: base}); err != nil {
				return err
			}
		}
		if err := tx.InsertChatWebhook(&hitl.ChatWebhook{ID: "cwh_a", Kind: hitl.ChatSlack, URL: "https://chat.example/hook/a", Events: []string{},
			CreatedBy: "root", CreatedAt: base}); err != nil {
			return err
		}
		for _, name := range []string{"link_secret", "callback_secret", "other"} {
			if _, err := tx.Setting(name, "v_"+name); err != nil {
				return err
			}
		}
		return nil
	}))
	want := []hitl.StoredSecret{
		{Kind: hitl.SecretChatWebhook, Name: "cwh_a", Value: "https://chat.example/hook/a"},
		{Kind: hitl.SecretSetting, Name: "callback_secret", Value: "v_callback_secret"},
		{Kind: hitl.SecretSetting, Name: "link_secret", Value: "v_link_secret"},
		{Kind: hitl.SecretWebhook, Name: "wh_a", Value: "whsec_wh_a"},
		{Kind: hitl.SecretWebhook, Name: "wh_b", Value: "whsec_wh_b"},
	}
	if got := list("link_secret", "callback_secret", "audit_key"); !slices.Equal(got, want) {
		t.Fatalf("stored secrets: %+v, want %+v", got, want)
	}
	if got := list(); len(got) != 3 || got[0].Kind != hitl.SecretChatWebhook || got[1].Kind != hitl.SecretWebhook {
		t.Fatalf("stored secrets, no settings named: %+v", got)
	}

	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretWebhook, Name: "wh_a", Value: "enc:v1:a"}); err != nil {
			return err
		}
		if err := tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretChatWebhook, Name: "cwh_a", Value: "enc:v1:c"}); err != nil {
			return err
		}
		return tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretSetting, Name: "link_secret", Value: "enc:v1:l"})
	}))
	want[0].Value, want[2].Value, want[3].Value = "enc:v1:c", "enc:v1:l", "enc:v1:a"
	if got := list("link_secret", "callback_secret"); !slices.Equal(got, want) {
		t.Fatalf("stored secrets after a change: %+v, want %+v", got, want)
	}
	var setting string
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { setting, err = tx.Setting("link_secret", "new"); return err }))
	if setting != "enc:v1:l" {
		t.Fatalf("the setting reads %q after SetStoredSecret", setting)
	}
	if w, err := s.ChatWebhook(ctx, "cwh_a"); err != nil || w.URL != "enc:v1:c" {
		t.Fatalf("the chat webhook after SetStoredSecret: %+v, %v", w, err)
	}

	// What is not there is ENotFound, and the change that met it keeps nothing.
	for _, missing := range []hitl.StoredSecret{{Kind: hitl.SecretWebhook, Name: "wh_gone"}, {Kind: hitl.SecretSetting, Name: "audit_key"},
		{Kind: hitl.SecretChatWebhook, Name: "cwh_gone"}} {
		err := s.Update(ctx, func(tx hitl.Tx) error {
			if err := tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretWebhook, Name: "wh_b", Value: "enc:v1:b"}); err != nil {
				return err
			}
			return tx.SetStoredSecret(missing)
		})
		if code(err) != hitl.ENotFound || !strings.Contains(err.Error(), missing.Place()) {
			t.Fatalf("replacing %s: %v, want ENotFound naming it", missing.Place(), err)
		}
	}
	if got := list("link_secret", "callback_secret"); !slices.Equal(got, want) {
		t.Fatalf("stored secrets after failed changes: %+v, want %+v", got, want)
	}
}
