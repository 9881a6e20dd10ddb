package storetest

import (
	"context"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testReceipts: the receipt an inquiry is resolved with is read back with it, and found by
// its id; a receipt is redeemed once, by whichever of many racing transactions comes first,
// and every later one is told who did and when.
func testReceipts(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"jti":"rcpt_storetest","sub":"1"}`))
	token := "eyJhbGciOiJFZERTQSJ9." + payload + ".c2ln"
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		next := *inq
		next.Status, next.Response, next.Receipt = hitl.StatusResponded, []byte(`"ok"`), token
		return tx.ResolveInquiry(&next)
	}))
	got, err := s.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.Receipt != token || got.ReceiptID() != "rcpt_storetest" {
		t.Fatalf("receipt read back: %q", got.Receipt)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		found, err := tx.ReceiptInquiry("rcpt_storetest")
		if err == nil && found.ID != inq.ID {
			t.Errorf("receipt's inquiry %d, want %d", found.ID, inq.ID)
		}
		if _, err := tx.ReceiptInquiry("rcpt_none"); code(err) != hitl.ENotFound {
			t.Errorf("an unknown receipt: %v", err)
		}
		return err
	}))

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		wins  int
		first hitl.ReceiptRedemption
	)
	for i := range 10 {
		wg.Go(func() {
			r := hitl.ReceiptRedemption{ID: "rcpt_storetest", InquiryID: inq.ID, RedeemedAt: base.Add(time.Duration(i) * time.Second), RedeemedBy: string(rune('a' + i))}
			var (
				earlier  hitl.ReceiptRedemption
				redeemed bool
			)
			err := s.Update(ctx, func(tx hitl.Tx) (err error) {
				earlier, redeemed, err = tx.RedeemReceipt(r)
				return err
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if redeemed {
				wins++
				first = earlier
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d racing redeems succeeded, want 1", wins)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		again, redeemed, err := tx.RedeemReceipt(hitl.ReceiptRedemption{ID: "rcpt_storetest", InquiryID: inq.ID, RedeemedAt: base.Add(time.Hour), RedeemedBy: "late"})
		if err == nil && (redeemed || again.RedeemedBy != first.RedeemedBy || !again.RedeemedAt.Equal(first.RedeemedAt) || again.InquiryID != inq.ID) {
			t.Errorf("a later redeem: %+v (redeemed %v), want the first %+v", again, redeemed, first)
		}
		return err
	}))
}
