package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/supervisor"
)

// probe serves /readyz and /livez for the feed on 127.0.0.1.
type probe struct {
	ln  net.Listener
	srv *http.Server
	hc  *http.Client
}

func startProbe(c *client) (*probe, error) {
	var reg health.Registry
	reg.Add("feed", (*supervisor.Supervisor[*websocket.Conn])(c.feed), health.SourceOptions{Critical: true})
	mux := http.NewServeMux()
	mux.Handle("/readyz", healthhttp.ReadyHandler(&reg))
	mux.Handle("/livez", healthhttp.LiveHandler(&reg))
	mux.Handle("/status", healthhttp.StatusPage(&reg, healthhttp.StatusPageOptions{Title: "redial demo", Verbose: true}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &probe{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}, hc: &http.Client{Timeout: time.Second}}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *probe) URL() string { return "http://" + p.ln.Addr().String() + "/readyz" }

// StatusURL is the status page's address.
func (p *probe) StatusURL() string { return "http://" + p.ln.Addr().String() + "/status" }

// get returns the readiness status code, or 0 when asking failed.
func (p *probe) get(ctx context.Context) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL(), nil)
	if err != nil {
		return 0
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (p *probe) Close() {
	p.hc.CloseIdleConnections()
	_ = p.srv.Close()
}
