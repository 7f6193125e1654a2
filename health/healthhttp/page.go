package healthhttp

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/redact"
)

// StatusPageOptions configures StatusPage.
type StatusPageOptions struct {
	// Title heads the page; "" means "redial".
	Title string
	// Verbose shows each source's last error and the errors of its
	// transitions, redacted, as ReadyHandler does with ?verbose=1. Off, the
	// page shows nothing the readiness body does not show without it.
	Verbose bool
}

// StatusPage returns a handler serving one self-contained HTML page for
// operators: one row per source of r with its state (colour and word), since
// when, the failed attempts, the next attempt as a countdown, the
// reconnects in the last minute, the lag behind its feed (in red over its
// MaxLag), the endpoint, and the last transitions
// drawn as an inline SVG timeline (from the source's History, when it is a
// HistorySource); under a source with several endpoints, one row per
// endpoint (an EndpointSource) with its health, failures in a row and
// when its ejection ends. The page loads nothing from elsewhere — no scripts,
// fonts or styles — and sends a Content-Security-Policy that allows only
// its own inline script and style (by hash) and requests to itself; it
// refreshes itself every second from the same URL with ?format=json,
// without reloading. Mount it on a path of its own (say /status).
func StatusPage(r *health.Registry, o StatusPageOptions) http.Handler {
	if o.Title == "" {
		o.Title = "redial"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		snap := snapshot(r.Entries(), o.Verbose, time.Now())
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if req.URL.Query().Get("format") == "json" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(snap) // a write error means the reader went away
			return
		}
		data, err := json.Marshal(snap)
		if err != nil {
			http.Error(w, "status page: "+err.Error(), http.StatusInternalServerError)
			return
		}
		var b bytes.Buffer
		if err := pageTemplate.Execute(&b, pageData{Title: o.Title, Data: template.JS(data), Script: pageScript, Style: pageStyle}); err != nil {
			http.Error(w, "status page: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", pageCSP)
		_, _ = w.Write(b.Bytes())
	})
}

// pageSnapshot is the page's data, also served as JSON.
type pageSnapshot struct {
	Now     time.Time    `json:"now"`
	Ready   bool         `json:"ready"`
	Live    bool         `json:"live"`
	Sources []pageSource `json:"sources"`
}

// pageSource is a probe's source report and what only the page shows.
type pageSource struct {
	sourceReport
	Reconnects int              `json:"reconnects_last_minute"`
	Endpoint   string           `json:"endpoint,omitempty"`
	Endpoints  []pageEndpoint   `json:"endpoints,omitempty"`
	History    []pageTransition `json:"history"`
}

// pageEndpoint is one endpoint's row, for a source with several.
type pageEndpoint struct {
	Name      string               `json:"name"`
	State     health.EndpointState `json:"state"`
	Preferred bool                 `json:"preferred,omitempty"`
	Failures  int                  `json:"consecutive_failures"`
	Until     *time.Time           `json:"ejected_until,omitempty"` // while ejected
}

type pageTransition struct {
	At     time.Time     `json:"at"`
	From   health.State  `json:"from"`
	To     health.State  `json:"to"`
	Delay  time.Duration `json:"delay_ns,omitempty"`
	Reason string        `json:"reason,omitempty"`
	Err    string        `json:"err,omitempty"`
}

// snapshot is the page's data from one reading of every source.
func snapshot(es health.Entries, verbose bool, now time.Time) pageSnapshot {
	snap := pageSnapshot{Now: now, Ready: es.Ready(), Live: es.Live(), Sources: make([]pageSource, len(es))}
	for i, e := range es {
		ps := pageSource{sourceReport: reportOf(e, verbose), Reconnects: e.Status.ReconnectsLastMinute,
			Endpoint: e.Status.Endpoint, History: []pageTransition{}}
		for _, ep := range e.Endpoints {
			pe := pageEndpoint{Name: redact.Text(ep.Name), State: ep.State, Preferred: ep.Preferred, Failures: ep.ConsecutiveFailures}
			if ep.State == health.EndpointEjected {
				pe.Until = &ep.EjectedUntil
			}
			ps.Endpoints = append(ps.Endpoints, pe)
		}
		var history []health.Transition
		if h, ok := e.Source.(health.HistorySource); ok {
			history = h.History()
		}
		for _, t := range history {
			pt := pageTransition{At: t.At, From: t.From, To: t.To, Delay: t.Delay, Reason: t.Reason}
			if verbose && t.Err != nil {
				pt.Err = redact.Text(t.Err.Error())
			}
			ps.History = append(ps.History, pt)
		}
		snap.Sources[i] = ps
	}
	return snap
}

type pageData struct {
	Title  string
	Data   template.JS // JSON (json.Marshal escapes <, > and &), in a data block
	Script template.JS
	Style  template.CSS
}

var (
	//go:embed page/page.html
	pageHTML string
	//go:embed page/page.js
	pageJS string
	//go:embed page/page.css
	pageCSS string

	pageTemplate = template.Must(template.New("page").Parse(pageHTML))
	pageScript   = template.JS(pageJS)
	pageStyle    = template.CSS(pageCSS)
	// pageCSP allows the page's own inline script and style, by hash, and
	// requests to its own origin: nothing else.
	pageCSP = "default-src 'none'; script-src '" + hash(pageJS) + "'; style-src '" + hash(pageCSS) +
		"'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
