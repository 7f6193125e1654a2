package healthhttp

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/redact"
)

// ReadyHandler answers a readiness probe (Kubernetes readinessProbe,
// /readyz): 200 when every critical source of r is Connected, not
// draining, within its MaxLag and not degraded, 503 otherwise, with a JSON body listing
// every source's name, state, criticality, counts, lag behind its feed
// (items waiting and the oldest's age; lagging when over its MaxLag) and
// degraded. With ?verbose=1 the body adds the last error, redacted, as
// last_error beside last_failure (when it happened, so a source that is
// connected again does not look broken), and why a source is degraded,
// redacted, as degraded_error.
// A pod whose database is down stops receiving traffic but is not
// restarted.
func ReadyHandler(r *health.Registry) http.Handler {
	return probe(r, health.Entries.Ready)
}

// LiveHandler answers a liveness probe (Kubernetes livenessProbe, /livez):
// 503 only when a critical source of r has Failed (given up for good), 200
// otherwise, with the same JSON body as ReadyHandler. A source in Backoff
// is still live: a restart would not help it.
func LiveHandler(r *health.Registry) http.Handler {
	return probe(r, health.Entries.Live)
}

// report is the JSON body of both probes.
type report struct {
	Status  string         `json:"status"` // "ok" or "unavailable"
	Sources []sourceReport `json:"sources"`
}

type sourceReport struct {
	Name                string       `json:"name"`
	Critical            bool         `json:"critical"`
	State               health.State `json:"state"`
	Since               time.Time    `json:"since"`
	ConsecutiveFailures int          `json:"consecutive_failures"`
	Connects            uint64       `json:"connects"`
	NextAttempt         *time.Time   `json:"next_attempt,omitempty"`
	LastError           string       `json:"last_error,omitempty"` // with ?verbose=1 only
	LastFailure         *time.Time   `json:"last_failure,omitempty"`
	Lag                 *lagReport   `json:"lag,omitempty"`            // while items wait for the program
	Lagging             bool         `json:"lagging,omitempty"`        // over its MaxLag: not ready
	Degraded            bool         `json:"degraded,omitempty"`       // connected but unable to serve: not ready
	Draining            bool         `json:"draining,omitempty"`       // shutting down (Drain): not ready
	DegradedBy          string       `json:"degraded_error,omitempty"` // why, with ?verbose=1 only
}

type lagReport struct {
	Waiting int     `json:"waiting"`
	Oldest  float64 `json:"oldest_seconds"`
}

// reportOf is e as both probes and the page show it; verbose adds the
// last error, redacted, and when it happened.
func reportOf(e health.Entry, verbose bool) sourceReport {
	st := e.Status
	sr := sourceReport{Name: e.Name, Critical: e.Critical, State: st.State, Since: st.Since, ConsecutiveFailures: st.ConsecutiveFailures, Connects: st.Connects, Lagging: e.Lagging(), Degraded: e.Degraded != nil, Draining: e.Draining}
	if e.Lag.Waiting > 0 {
		sr.Lag = &lagReport{Waiting: e.Lag.Waiting, Oldest: e.Lag.Oldest.Seconds()}
	}
	if !st.NextAttempt.IsZero() && st.State == health.Backoff {
		sr.NextAttempt = &st.NextAttempt
	}
	if verbose && e.Degraded != nil {
		sr.DegradedBy = redact.Text(e.Degraded.Error())
	}
	if verbose && st.Err != nil {
		sr.LastError = redact.Text(st.Err.Error())
		if !st.LastFailure.IsZero() {
			sr.LastFailure = &st.LastFailure
		}
	}
	return sr
}

func probe(r *health.Registry, ok func(health.Entries) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		es := r.Entries()
		verbose := req.URL.Query().Get("verbose") == "1"
		rep := report{Status: "ok", Sources: make([]sourceReport, len(es))}
		for i, e := range es {
			rep.Sources[i] = reportOf(e, verbose)
		}
		code := http.StatusOK
		if !ok(es) {
			code, rep.Status = http.StatusServiceUnavailable, "unavailable"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(rep) // a write error means the prober went away
	})
}
