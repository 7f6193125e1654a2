package redialtest

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP relay on 127.0.0.1 in front of a real server: point the
// program at Addr and switch faults on and off while traffic flows. Faults
// add up until Heal ends them all. Each method is safe for concurrent use
// and returns once its change holds.
type Proxy struct {
	t      testing.TB // nil from StartProxy
	target string
	addr   string
	ctl    sync.Mutex // serialises the fault methods

	mu        sync.Mutex
	writes    *sync.Cond    // signalled when a write under way ends
	ln        net.Listener  // nil while refusing or closed
	accepting chan struct{} // closed when ln's accept loop returned
	closed    bool
	blackhole bool
	stalled   bool
	latency   time.Duration
	heal      chan struct{} // closed by Heal; a new one while a fault holds
	links     map[*link]struct{}
	accepted  int
	wg        sync.WaitGroup // accept loops and links
}

// NewProxy starts a Proxy relaying to target, as StartProxy does, for the
// length of t: t's Cleanup closes it, and a failure fails t.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := StartProxy(target)
	if err != nil {
		t.Fatal(err)
	}
	p.t = t
	t.Cleanup(p.Close)
	return p
}

// StartProxy listens on 127.0.0.1:0 and relays each connection to target,
// dialled when the connection is accepted. Close it when done.
func StartProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("redialtest: proxy: %w", err)
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), links: map[*link]struct{}{}, heal: make(chan struct{})}
	p.writes = sync.NewCond(&p.mu)
	close(p.heal)
	p.listenLocked(ln)
	return p, nil
}

// Addr is the proxy's address, host:port; it stays the same for the
// proxy's life, Refuse included.
func (p *Proxy) Addr() string { return p.addr }

// Accepted returns how many connections the proxy accepted so far.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Open returns how many accepted connections are live now (killed and
// ended ones are not).
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

func (p *Proxy) listenLocked(ln net.Listener) {
	p.ln, p.accepting = ln, make(chan struct{})
	done := p.accepting
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(done)
		p.accept(ln)
	}()
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			_ = c.Close()
			return
		}
		p.accepted++
		l := newLink(c)
		if p.blackhole {
			l.held = p.heal
		}
		p.links[l] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			p.serve(l)
		}()
	}
}

// Close closes the proxy and every connection, and waits for its
// goroutines; a second Close does nothing.
func (p *Proxy) Close() {
	p.ctl.Lock()
	p.mu.Lock()
	p.closed = true
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for l := range p.links {
		p.abortLocked(l, false)
	}
	p.healLocked()
	p.mu.Unlock()
	p.ctl.Unlock()
	p.wg.Wait()
}
