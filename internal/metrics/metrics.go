// Package metrics defines hitl's Prometheus metrics in one place. A nil *Metrics records
// nothing, so parts can be used without metrics in tests.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hitl-dev/hitl/internal/buildinfo"
)

// Metrics holds every collector hitl exports, on its own registry.
type Metrics struct {
	registry          *prometheus.Registry
	inquiriesCreated  prometheus.Counter
	inquiriesResolved *prometheus.CounterVec
	responseTime      prometheus.Histogram
	groupResponseTime *prometheus.HistogramVec
	wakeLatency       prometheus.Histogram
	httpRequests      *prometheus.CounterVec
	httpDuration      *prometheus.HistogramVec
	rateLimited       *prometheus.CounterVec
	decisions         *decisionMetrics // decisions.go
}

// Gauges are read when the metrics are scraped.
type Gauges struct {
	Pending func() float64 // inquiries waiting for an answer
	// OldestPending is the age in seconds of the inquiry that has waited longest (read from
	// the store at each scrape, so every node shows the same).
	OldestPending func() float64
	Waiting       func() float64 // agents parked on a wait
	Streams       func() float64 // open event streams
	// BrokerBacklog counts the events not yet confirmed by each broker (nil: no brokers).
	BrokerBacklog func() map[string]int
	// WriterCounts are the changes this node's store writer has run and the transactions
	// they came in (nil: the store has no single writer).
	WriterCounts func() (changes, batches int64)
}

// responseBuckets are how long humans take: from a second to a day.
var responseBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600}

// New registers the collectors.
func New(g Gauges) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		inquiriesCreated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hitl_inquiries_created_total", Help: "Inquiries created.",
		}),
		inquiriesResolved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hitl_inquiries_resolved_total", Help: "Inquiries that reached a final status, by status.",
		}, []string{"status"}),
		responseTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "hitl_human_response_seconds", Help: "Time from an inquiry's creation to the human's answer.",
			Buckets: responseBuckets,
		}),
		groupResponseTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hitl_group_response_seconds", Help: "Time from an inquiry's creation to the human's answer, by the group it was assigned to " +
				"(a group the server knows; other for the rest; none when assigned to no group).",
			Buckets: responseBuckets,
		}, []string{"group"}),
		wakeLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "hitl_wake_latency_seconds", Help: "Time from the commit that resolved an inquiry to its waiter returning.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hitl_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hitl_http_request_seconds", Help: "HTTP request duration by route (long polls included).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
		}, []string{"route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hitl_rate_limited_total", Help: "Requests refused by the rate limit, by the role whose limit applied (\"default\" when none).",
		}, []string{"role"}),
	}
	m.registry.MustRegister(m.inquiriesCreated, m.inquiriesResolved, m.responseTime, m.groupResponseTime, m.wakeLatency, m.httpRequests, m.httpDuration, m.rateLimited,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_inquiries_pending", Help: "Inquiries waiting for an answer."}, g.Pending),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_oldest_pending_seconds",
			Help: "How long the inquiry that has waited longest for an answer has waited; 0 when none waits."}, g.OldestPending),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_waiters", Help: "Agents parked on a wait (long polls)."}, g.Waiting),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "hitl_streams", Help: "Open event streams (SSE)."}, g.Streams),
		buildInfo(buildinfo.Get()), backlog{g.BrokerBacklog},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.decisions = newDecisionMetrics(m.registry)
	if g.WriterCounts != nil {
		// Changes per transaction is how much the group commit shares each commit and flush.
		m.registry.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "hitl_store_changes_total", Help: "Changes the store's writer has run on this node."},
				func() float64 { c, _ := g.WriterCounts(); return float64(c) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "hitl_store_commits_total", Help: "Transactions the store's writer has committed the changes in, many changes each under load."},
				func() float64 { _, b := g.WriterCounts(); return float64(b) }))
	}
	return m
}

var backlogDesc = prometheus.NewDesc("hitl_broker_backlog", "Events waiting to be confirmed by a message broker, by broker.", []string{"broker"}, nil)

// backlog reads the brokers' backlog from the store when the metrics are scraped.
type backlog struct{ count func() map[string]int }

func (b backlog) Describe(ch chan<- *prometheus.Desc) { ch <- backlogDesc }

func (b backlog) Collect(ch chan<- prometheus.Metric) {
	if b.count == nil {
		return
	}
	for name, n := range b.count() {
		ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(n), name)
	}
}

// buildInfo is the gauge hitl_build_info{version,revision,go_version} 1: which hitl this is.
func buildInfo(i buildinfo.Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "hitl_build_info", Help: "Which hitl this is: its module version, VCS revision and Go toolchain; always 1.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": i.Revision, "go_version": i.GoVersion}})
	g.Set(1)
	return g
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// InquiryCreated counts a new inquiry.
func (m *Metrics) InquiryCreated() {
	if m != nil {
		m.inquiriesCreated.Inc()
	}
}

// InquiryResolved counts a final status; for answers it records how long the human took,
// in all and under each of groups (the labels of the inquiry's groups).
func (m *Metrics) InquiryResolved(status string, humanTime time.Duration, groups []string) {
	if m == nil {
		return
	}
	m.inquiriesResolved.WithLabelValues(status).Inc()
	if status == "responded" {
		m.responseTime.Observe(humanTime.Seconds())
		for _, g := range groups {
			m.groupResponseTime.WithLabelValues(g).Observe(humanTime.Seconds())
		}
	}
}

// WaiterWoken records the time from commit to a waiter returning.
func (m *Metrics) WaiterWoken(d time.Duration) {
	if m != nil {
		m.wakeLatency.Observe(d.Seconds())
	}
}

// RateLimited counts a request refused by the rate limit; role is the role whose limit applied
// ("" for the default), never the key, so that the series stay few.
func (m *Metrics) RateLimited(role string) {
	if m == nil {
		return
	}
	if role == "" {
		role = "default"
	}
	m.rateLimited.WithLabelValues(role).Inc()
}

// HTTPRequest records one finished request.
func (m *Metrics) HTTPRequest(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.httpRequests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(route).Observe(d.Seconds())
}
