package main

import (
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// upstream is a local server that can be stopped and started again on the
// same port, to watch readiness follow it.
type upstream struct {
	addr  string
	serve func(net.Listener)

	mu    sync.Mutex
	ln    net.Listener
	conns map[io.Closer]struct{}
	wg    sync.WaitGroup
}

func newUpstream(serve func(u *upstream, ln net.Listener)) (*upstream, error) {
	u := &upstream{conns: map[io.Closer]struct{}{}}
	u.serve = func(ln net.Listener) { serve(u, ln) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	u.addr = ln.Addr().String()
	u.run(ln)
	return u, nil
}

func (u *upstream) run(ln net.Listener) {
	u.mu.Lock()
	u.ln = ln
	u.mu.Unlock()
	u.wg.Go(func() { u.serve(ln) })
}

// track remembers c, accepted on ln, until it is closed by Stop or by its
// handler. A handler may get there after Stop (a WebSocket handshake ends
// before its handler tracks the connection): c is then closed at once.
func (u *upstream) track(ln net.Listener, c io.Closer) (untrack func()) {
	u.mu.Lock()
	if u.ln != ln {
		u.mu.Unlock()
		_ = c.Close()
		return func() {}
	}
	u.conns[c] = struct{}{}
	u.mu.Unlock()
	return func() {
		u.mu.Lock()
		delete(u.conns, c)
		u.mu.Unlock()
	}
}

// Stop closes the listener and every connection.
func (u *upstream) Stop() {
	u.mu.Lock()
	if u.ln == nil {
		u.mu.Unlock()
		return
	}
	_ = u.ln.Close()
	u.ln = nil
	for c := range u.conns {
		_ = c.Close()
	}
	u.mu.Unlock()
	u.wg.Wait()
}

// Start listens again on the same address.
func (u *upstream) Start() error {
	u.mu.Lock()
	running := u.ln != nil
	u.mu.Unlock()
	if running {
		return nil
	}
	ln, err := net.Listen("tcp", u.addr)
	if err != nil {
		return err
	}
	u.run(ln)
	return nil
}

// tcpEcho serves a TCP echo.
func tcpEcho(u *upstream, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		untrack := u.track(ln, c)
		u.wg.Go(func() {
			defer untrack()
			defer c.Close()
			_, _ = io.Copy(c, c)
		})
	}
}

// wsFeed serves WebSocket connections that stay open until closed.
func wsFeed(u *upstream, ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		untrack := u.track(ln, &closer{c.CloseNow})
		defer untrack()
		<-c.CloseRead(r.Context()).Done()
	})}
	untrack := u.track(ln, srv)
	defer untrack()
	_ = srv.Serve(ln)
}

// closer makes a close function an io.Closer that can be a map key.
type closer struct{ close func() error }

func (c *closer) Close() error { return c.close() }
