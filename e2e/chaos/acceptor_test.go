package chaos

import (
	"net"
	"sync"
	"testing"
)

// acceptor is the restartable part of the TCP and RPC servers: a
// listener on a fixed low port, an accept loop, and every connection it
// accepted, so that stop can close them all like a killed process would.
type acceptor struct {
	name  string
	addr  string
	serve func(net.Conn) // serves one connection until it ends; the acceptor closes it afterwards

	mu    sync.Mutex
	ln    net.Listener // nil while stopped
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup // the accept loop and every serve
}

func startAcceptor(t testing.TB, name string, serve func(net.Conn)) *acceptor {
	a := &acceptor{name: name, serve: serve, conns: map[net.Conn]struct{}{}}
	ln := listenLow(t)
	a.addr = ln.Addr().String()
	a.run(ln)
	t.Cleanup(a.stop)
	return a
}

func (a *acceptor) run(ln net.Listener) {
	a.mu.Lock()
	a.ln = ln
	a.mu.Unlock()
	a.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !a.track(c) {
				c.Close()
				continue
			}
			a.wg.Go(func() {
				a.serve(c)
				c.Close()
				a.mu.Lock()
				delete(a.conns, c)
				a.mu.Unlock()
			})
		}
	})
}

func (a *acceptor) track(c net.Conn) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ln == nil {
		return false
	}
	a.conns[c] = struct{}{}
	return true
}

// stop closes the listener and every connection, and waits until every
// serve returned.
func (a *acceptor) stop() {
	a.mu.Lock()
	ln, conns := a.ln, a.conns
	a.ln, a.conns = nil, map[net.Conn]struct{}{}
	a.mu.Unlock()
	if ln == nil {
		return
	}
	ln.Close()
	for c := range conns {
		c.Close()
	}
	a.wg.Wait()
}

// start listens again on the same address.
func (a *acceptor) start(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", a.addr)
	if err != nil {
		t.Fatalf("%s: listen again on %s: %v", a.name, a.addr, err)
	}
	a.run(ln)
}
