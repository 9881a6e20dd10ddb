package bench

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// ceiling runs the throughput's traffic, from the same client with the same clients and
// duration, against a server in this process that does the HTTP part of a create+respond
// cycle — reads and strictly decodes each request's JSON, answers with an inquiry's JSON of
// the same shape — and stores nothing: what hitl's storage could at best come to.
func (r *run) ceiling(ctx context.Context) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	srv := &http.Server{Handler: ceilingHandler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	agent, human := client.New(url, "ceiling-agent", r.hc), client.New(url, "ceiling-human", r.hc)
	perS, _, err := cycles(ctx, r.o.ThroughputClients, r.o.ThroughputDuration, agent, human)
	return perS, err
}

// ceilingHandler answers POST /v1/inquiries and POST /v1/inquiries/{id}/respond as hitl does,
// from memory of nothing.
func ceilingHandler() http.Handler {
	var ids atomic.Int64
	mux := http.NewServeMux()
	inquiry := func(id int64, req *hitl.InquiryRequest) *hitl.Inquiry {
		now := time.Now().UTC()
		return &hitl.Inquiry{ID: id, Status: hitl.StatusPending, Prompt: req.Prompt, RequestType: req.RequestType,
			ResponseSchema: json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"]}`),
			CreatedBy:      "bench-agent", AssignedTo: []string{}, FallbackPolicy: hitl.FallbackFail, Metadata: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	}
	write := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /v1/inquiries", func(w http.ResponseWriter, r *http.Request) {
		var req hitl.InquiryRequest
		if b, err := io.ReadAll(r.Body); err != nil || strictjson.Unmarshal(b, &req) != nil || r.Header.Get("Authorization") == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		write(w, http.StatusCreated, inquiry(ids.Add(1), &req))
	})
	mux.HandleFunc("POST /v1/inquiries/{id}/respond", func(w http.ResponseWriter, r *http.Request) {
		var req hitl.ResponseRequest
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if b, rerr := io.ReadAll(r.Body); err != nil || rerr != nil || strictjson.Unmarshal(b, &req) != nil || r.Header.Get("Authorization") == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		inq := inquiry(id, &hitl.InquiryRequest{Prompt: "Approve?", RequestType: hitl.RequestApproval})
		by, at := "bench-human", time.Now().UTC()
		inq.Status, inq.Response, inq.RespondedBy, inq.RespondedAt, inq.UpdatedAt = hitl.StatusResponded, req.Response, &by, &at, at
		write(w, http.StatusOK, inq)
	})
	return mux
}
