package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// An inquiry whose context nests deeper than SQLite's JSON functions go (1,000) was stored
// before the engine refused such contexts: searching, in the API and in the inbox, still works
// for everyone who can see it.
func TestSearchWithDeepContextStored(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "hitl.db")
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	at := hitl.UTC(time.Now())
	deep := &hitl.Inquiry{Status: hitl.StatusPending, Prompt: "Deep context inside", RequestType: hitl.RequestInput,
		ResponseSchema: json.RawMessage(`{"type":"string"}`), CreatedBy: "deploy-bot", AssignedTo: []string{},
		Context:        json.RawMessage(strings.Repeat(`{"a":`, 1500) + "1" + strings.Repeat("}", 1500)),
		FallbackPolicy: hitl.FallbackFail, Metadata: map[string]string{}, CreatedAt: at, UpdatedAt: at}
	if err := st.Update(ctx, func(tx hitl.Tx) error { return tx.InsertInquiry(deep) }); err != nil {
		t.Fatal(err)
	}
	st.Close()

	url := testserver.Start(t, testserver.DB(db)).URL
	for q, found := range map[string]bool{"x": true, "deep": true, "nothing": false} {
		req, _ := http.NewRequest(http.MethodGet, url+"/v1/inquiries?q="+q, nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct{ Data []*hitl.Inquiry }
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || (len(page.Data) == 1 && page.Data[0].ID == deep.ID) != found {
			t.Errorf("GET /v1/inquiries?q=%s: %d, %d items", q, res.StatusCode, len(page.Data))
		}
	}

	b := browserAt(t, url)
	b.signIn(adminToken)
	for q, found := range map[string]bool{"x": true, "deep": true, "nothing": false} {
		res := b.get("/?tab=pending&q=" + q)
		if res.status != http.StatusOK || strings.Contains(res.body, fmt.Sprintf(`id="inquiry-%d"`, deep.ID)) != found {
			t.Errorf("inbox search %q: %d; want 200 that lists the deep one: %v", q, res.status, found)
		}
	}
}
