// Package toxitest runs github.com/Shopify/toxiproxy/v2 proxies in the test
// process, between a client and a real server on 127.0.0.1, to inject
// faults: reset_peer, timeout (a silent peer), latency, bandwidth, a proxy
// disabled and enabled again.
package toxitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Proxy is a started toxiproxy proxy; tests connect to Addr instead of the
// server's own address. It is stopped when the test ends.
type Proxy struct {
	p *toxiproxy.Proxy
}

// New starts a proxy on 127.0.0.1 (a free port) to upstream.
func New(t testing.TB, upstream string) *Proxy {
	t.Helper()
	return NewOn(t, "127.0.0.1:0", upstream)
}

// NewOn starts a proxy listening on listen (host:port) to upstream. A
// proxy that is disabled and enabled again many times should listen on a
// port below the kernel's ephemeral range (32768 and up on Linux): there
// no outgoing connection can take the port while the proxy is disabled,
// which would make Enable fail with "address already in use".
func NewOn(t testing.TB, listen, upstream string) *Proxy {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, t.Name(), listen, upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("toxitest: start proxy on %s to %s: %v", listen, upstream, err)
	}
	t.Cleanup(func() {
		// Toxics first: a latency toxic's goroutines outlive Proxy.Stop.
		p.Toxics.ResetToxics(context.Background())
		p.Stop()
	})
	return &Proxy{p: p}
}

// Addr is the address clients dial: host:port on 127.0.0.1. It stays the
// same across Disable and Enable.
func (p *Proxy) Addr() string { return p.p.Listen }

// Add adds a toxic: typ is one of latency, bandwidth, slow_close, timeout,
// reset_peer, slicer, limit_data; stream is "upstream" or "downstream";
// attrs are the toxic's attributes (e.g. {"latency": 500}). The toxic is
// named name, for Remove.
func (p *Proxy) Add(t testing.TB, name, typ, stream string, attrs map[string]any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": 1.0, "attributes": attrs})
	if err != nil {
		t.Fatalf("toxitest: %v", err)
	}
	if _, err := p.p.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
		t.Fatalf("toxitest: add %s toxic %q: %v", typ, name, err)
	}
}

// Remove removes the toxic named name.
func (p *Proxy) Remove(t testing.TB, name string) {
	t.Helper()
	if err := p.p.Toxics.RemoveToxic(context.Background(), name); err != nil {
		t.Fatalf("toxitest: remove toxic %q: %v", name, err)
	}
}

// ResetPeer makes every connection, new and current, be reset (RST) after
// timeout (0: at once) on the downstream side.
func (p *Proxy) ResetPeer(t testing.TB, name string, timeout time.Duration) {
	p.Add(t, name, "reset_peer", "downstream", map[string]any{"timeout": timeout.Milliseconds()})
}

// Silence stops all data in both directions without closing anything (the
// timeout toxic with timeout 0): the peer looks alive but never answers.
func (p *Proxy) Silence(t testing.TB, name string) {
	p.Add(t, name+"-up", "timeout", "upstream", map[string]any{"timeout": 0})
	p.Add(t, name+"-down", "timeout", "downstream", map[string]any{"timeout": 0})
}

// Unsilence removes what Silence added.
func (p *Proxy) Unsilence(t testing.TB, name string) {
	p.Remove(t, name+"-up")
	p.Remove(t, name+"-down")
}

// Latency delays data in both directions by d.
func (p *Proxy) Latency(t testing.TB, name string, d time.Duration) {
	p.Add(t, name+"-up", "latency", "upstream", map[string]any{"latency": d.Milliseconds()})
	p.Add(t, name+"-down", "latency", "downstream", map[string]any{"latency": d.Milliseconds()})
}

// Disable closes the listener and every proxied connection; Enable listens
// again on the same address.
func (p *Proxy) Disable() { p.p.Stop() }

// Enable starts a disabled proxy again on its address.
func (p *Proxy) Enable(t testing.TB) {
	t.Helper()
	if err := p.p.Start(); err != nil {
		t.Fatalf("toxitest: enable proxy: %v", err)
	}
}

// String describes the proxy for messages.
func (p *Proxy) String() string { return fmt.Sprintf("toxiproxy %s -> %s", p.p.Listen, p.p.Upstream) }
