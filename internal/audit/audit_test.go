package audit

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// The canonical form is the one the package documentation describes, byte for byte, and the
// hash is SHA-256 of the previous hash and those bytes.
func TestCanonicalFormAndLink(t *testing.T) {
	id := int64(7)
	ev := &hitl.Event{Seq: 12, ID: "e-1", Type: hitl.EventInquiryResponded, Time: time.Date(2026, 11, 23, 8, 30, 0, 123456789, time.FixedZone("CET", 3600)),
		InquiryID: &id, Actor: "zoë \"z\" \u2028\x01", Data: json.RawMessage(`{"b":1, "a":12345678901234567890}`)}
	want := `{"actor":"zoë \"z\" ` + "\u2028" + `\u0001","data":{"b":1, "a":12345678901234567890},"id":"e-1","inquiry_id":7,"seq":12,"session":"","time":"2026-11-23T07:30:00.123456Z","type":"inquiry.responded"}`
	c := Canonicalize(ev)
	if got := string(c.Bytes(12)); got != want {
		t.Fatalf("canonical JSON:\n got %s\nwant %s", got, want)
	}
	prev := Hash{1, 2, 3}
	if got, want := Link(prev, c, 12), sha256.Sum256(append(prev[:], want...)); got != want {
		t.Fatalf("link %s, want SHA-256(prev ‖ canonical) = %x", got, want)
	}
	ev.InquiryID, ev.Session = nil, "s"
	wantTail := `"id":"e-1","inquiry_id":null,"seq":1,"session":"s","time":"2026-11-23T07:30:00.123456Z","type":"inquiry.responded"}`
	if got := string(Canonicalize(ev).Bytes(1)); !strings.HasSuffix(got, wantTail) {
		t.Fatalf("an event of a session and no inquiry: %s", got)
	}
}

func TestVerifierNamesTheFirstWrongSeq(t *testing.T) {
	evs := make([]*hitl.Event, 4)
	hashes := make([][]byte, 4)
	head := Genesis
	for i := range evs {
		evs[i] = &hitl.Event{Seq: int64(i + 1), ID: string(rune('a' + i)), Type: "t", Time: time.Unix(0, 0), Actor: "x", Data: json.RawMessage(`{}`)}
		head = Link(head, Canonicalize(evs[i]), evs[i].Seq)
		hashes[i] = append([]byte(nil), head[:]...)
	}
	run := func(order []int, hash func(i int) []byte) error {
		var v Verifier
		for _, i := range order {
			if err := v.Next(evs[i], hash(i)); err != nil {
				return err
			}
		}
		return nil
	}
	stored := func(i int) []byte { return hashes[i] }
	if err := run([]int{0, 1, 2, 3}, stored); err != nil {
		t.Fatalf("an intact chain: %v", err)
	}
	for name, c := range map[string]struct {
		order   []int
		hash    func(int) []byte
		wantSeq int64
	}{
		"missing":       {[]int{0, 2, 3}, stored, 2},
		"out of order":  {[]int{0, 2, 1}, stored, 2},
		"no hash":       {[]int{0, 1}, func(i int) []byte { return map[bool][]byte{true: hashes[i]}[i == 0] }, 2},
		"wrong hash":    {[]int{0, 1, 2}, func(i int) []byte { return hashes[(i+1)%4] }, 1},
		"hash of order": {[]int{0, 1, 3}, stored, 3},
	} {
		var b *Break
		if err := run(c.order, c.hash); !errors.As(err, &b) || b.Seq != c.wantSeq {
			t.Errorf("%s: %v; want a break at seq %d", name, err, c.wantSeq)
		}
	}
}

func TestSignedHeadVerifiesWithThePublicKey(t *testing.T) {
	key, err := ParseKey(NewKeySeed())
	if err != nil {
		t.Fatal(err)
	}
	h := Sign(key, 42, Hash{9}, time.Date(2026, 11, 23, 8, 0, 0, 5, time.UTC))
	sig, _ := base64.StdEncoding.DecodeString(h.Signature)
	msg := "hitl-audit-head\n42\n" + Hash{9}.String() + "\n2026-11-23T08:00:00Z"
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), []byte(msg), sig) {
		t.Fatalf("the signature of %+v does not verify over %q", h, msg)
	}
	if _, err := ParseKey("c2hvcnQ="); err == nil {
		t.Fatal("a short key was taken")
	}
}

// BenchmarkChainOneEvent is what the audit chain adds to the writer for one event whose data
// is a typical answered inquiry (about 1 KiB): its canonical JSON and its link.
func BenchmarkChainOneEvent(b *testing.B) {
	at := time.Now()
	inq := &hitl.Inquiry{ID: 12345, Status: hitl.StatusResponded, Prompt: "Deploy api v2.5.0 to production? Check the dashboards first.",
		RequestType: hitl.RequestApproval, CreatedBy: "deploy-bot", AssignedTo: []string{"alice", "group:sre"}, CreatedAt: at, UpdatedAt: at,
		Context:  json.RawMessage(`{"version":"v2.5.0","target":"production","changes":["a","b","c"],"risk":0.42,"owner":{"name":"alice","team":"sre"}}`),
		Response: json.RawMessage(`{"approved":true,"comment":"LGTM"}`)}
	data, _ := json.Marshal(inq)
	id := inq.ID
	ev := &hitl.Event{ID: "0b6f2f7e-8a8e-4d1c-9a57-4c1d0e2f3a4b", Type: hitl.EventInquiryResponded, Time: at, InquiryID: &id, Actor: "alice", Data: data}
	b.SetBytes(int64(len(data)))
	var h Hash
	for i := 0; b.Loop(); i++ {
		h = Link(h, Canonicalize(ev), int64(i))
	}
}

// Runs groups removed events into runs of consecutive seqs; MergeRuns joins runs that touch
// or overlap, keeping the hash of the last seq; Learn refuses a checkpoint whose run does not
// lie before it.
func TestRemovedRuns(t *testing.T) {
	h := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	hex := func(b byte) string { var x Hash; copy(x[:], h(b)); return x.String() }
	runs := Runs([]hitl.RemovedEvent{{Seq: 1, Hash: h(1)}, {Seq: 2, Hash: h(2)}, {Seq: 3, Hash: h(3)}, {Seq: 5, Hash: h(5)}})
	if want := []hitl.RemovedRun{{From: 1, To: 3, Hash: hex(3)}, {From: 5, To: 5, Hash: hex(5)}}; !slices.Equal(runs, want) {
		t.Fatalf("Runs = %v, want %v", runs, want)
	}
	merged := MergeRuns([]hitl.RemovedRun{{From: 6, To: 7, Hash: hex(7)}, {From: 1, To: 5, Hash: hex(5)}, {From: 3, To: 4, Hash: hex(4)}, {From: 9, To: 9, Hash: hex(9)}})
	if want := []hitl.RemovedRun{{From: 1, To: 7, Hash: hex(7)}, {From: 9, To: 9, Hash: hex(9)}}; !slices.Equal(merged, want) {
		t.Fatalf("MergeRuns = %v, want %v", merged, want)
	}
	var v Verifier
	for _, data := range []string{
		`{"removed":[{"from":3,"to":10,"hash":"` + hex(1) + `"}]}`, // reaches the checkpoint's own seq
		`{"removed":[{"from":4,"to":3,"hash":"` + hex(1) + `"}]}`,  // ends before it starts
		`{"removed":[{"from":1,"to":2,"hash":"abc"}]}`,             // no hash
		`{"removed":{}}`,
	} {
		var b *Break
		if err := v.Learn(&hitl.Event{Seq: 10, Data: json.RawMessage(data)}); !errors.As(err, &b) || b.Seq != 10 {
			t.Errorf("Learn(%s) = %v, want a break at the checkpoint, seq 10", data, err)
		}
	}
}

// A restore's gap: the seqs an audit.restored event says it skipped may be missing, alone or
// after a run retention removed, and the chain goes on from the event before them; a gap
// that the event does not name exactly, or an event of another type after a gap, is a break.
func TestRestoreGap(t *testing.T) {
	evs := make([]*hitl.Event, 3)
	hashes := make([]Hash, 3)
	head := Genesis
	for i := range evs {
		evs[i] = &hitl.Event{Seq: int64(i + 1), ID: string(rune('a' + i)), Type: "t", Time: time.Unix(0, 0), Actor: "x", Data: json.RawMessage(`{}`)}
		head = Link(head, Canonicalize(evs[i]), evs[i].Seq)
		hashes[i] = head
	}
	restored := func(typ string, from int64) (*hitl.Event, []byte) {
		data, err := json.Marshal(hitl.AuditRestore{Skipped: hitl.SeqRange{From: from, To: 99}})
		if err != nil {
			t.Fatal(err)
		}
		ev := &hitl.Event{Seq: 100, ID: "r", Type: typ, Time: time.Unix(0, 0), Actor: "hitl restore", Data: data}
		h := Link(hashes[2], Canonicalize(ev), 100)
		return ev, h[:]
	}
	walk := func(v *Verifier, last *hitl.Event, stored []byte, seqs ...int) error {
		for _, i := range seqs {
			if err := v.Next(evs[i], hashes[i][:]); err != nil {
				return err
			}
		}
		return v.Next(last, stored)
	}

	ev, h := restored(hitl.EventAuditRestored, 4)
	var v Verifier
	if err := walk(&v, ev, h, 0, 1, 2); err != nil || v.Seq != 100 || v.Removed != 0 || v.Events != 4 {
		t.Fatalf("across a restore's gap: %v (seq %d, %d removed, %d events)", err, v.Seq, v.Removed, v.Events)
	}
	// Retention removed seqs 2 and 3 later: their run, then the restore's gap.
	v = Verifier{}
	cp := `{"removed":[{"from":2,"to":3,"hash":"` + hashes[2].String() + `"}]}`
	if err := v.Learn(&hitl.Event{Seq: 101, Data: json.RawMessage(cp)}); err != nil {
		t.Fatal(err)
	}
	if err := walk(&v, ev, h, 0); err != nil || v.Seq != 100 || v.Removed != 2 {
		t.Fatalf("across a removed run and a restore's gap: %v (seq %d, %d removed)", err, v.Seq, v.Removed)
	}
	for name, c := range map[string]struct {
		typ  string
		from int64
	}{
		"a gap the restore does not name": {hitl.EventAuditRestored, 5},
		"a gap before another event":      {hitl.EventAuditCheckpoint, 4},
	} {
		ev, h := restored(c.typ, c.from)
		var v Verifier
		var b *Break
		if err := walk(&v, ev, h, 0, 1, 2); !errors.As(err, &b) || b.Seq != 4 {
			t.Errorf("%s: %v; want a break at seq 4", name, err)
		}
	}
}
