package redialtest

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"time"
)

// link is one relayed connection: the client's and the target's sockets
// and a pump each way.
type link struct {
	client net.Conn
	up     net.Conn // nil until dialled
	held   chan struct{}
	ctx    context.Context // ends when the link is aborted
	cancel context.CancelFunc
	pumps  [2]*pump
	exited chan struct{}
}

// pump copies one direction; writing and cut are guarded by Proxy.mu.
type pump struct {
	src, dst net.Conn
	writing  bool
	cut      bool // Stall set a past write deadline on dst
}

func newLink(c net.Conn) *link {
	ctx, cancel := context.WithCancel(context.Background())
	return &link{client: c, ctx: ctx, cancel: cancel, exited: make(chan struct{})}
}

func (p *Proxy) serve(l *link) {
	defer close(l.exited)
	defer p.forget(l)
	if l.held != nil {
		select {
		case <-l.held:
		case <-l.ctx.Done():
			return
		}
	}
	var d net.Dialer
	up, err := d.DialContext(l.ctx, "tcp", p.target)
	if err != nil {
		p.abort(l)
		return
	}
	p.mu.Lock()
	if l.ctx.Err() != nil {
		p.mu.Unlock()
		_ = up.Close()
		return
	}
	l.up = up
	l.pumps = [2]*pump{{src: l.client, dst: up}, {src: up, dst: l.client}}
	p.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.pump(l, l.pumps[1])
	}()
	p.pump(l, l.pumps[0])
	<-done
	_, _ = l.client.Close(), up.Close()
}

func (p *Proxy) forget(l *link) {
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
	l.cancel()
}

// pump relays w.src to w.dst until either fails; EOF is passed on as a
// half close, any other end aborts the link, so a reset is passed on too.
func (p *Proxy) pump(l *link, w *pump) {
	buf := make([]byte, 32<<10)
	for {
		n, err := w.src.Read(buf)
		if n > 0 && !p.deliver(l, w, buf[:n], time.Now()) {
			p.abort(l)
			return
		}
		if errors.Is(err, io.EOF) {
			if c, ok := w.dst.(interface{ CloseWrite() error }); ok {
				_ = c.CloseWrite()
			}
			return
		}
		if err != nil {
			p.abort(l)
			return
		}
	}
}

// deliver writes b to w.dst after the latency, once no Stall holds it.
func (p *Proxy) deliver(l *link, w *pump, b []byte, read time.Time) bool {
	p.mu.Lock()
	due := read.Add(p.latency)
	p.mu.Unlock()
	if wait := time.Until(due); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-l.ctx.Done():
			t.Stop()
			return false
		}
	}
	for len(b) > 0 {
		p.mu.Lock()
		for p.stalled && l.ctx.Err() == nil {
			heal := p.heal
			p.mu.Unlock()
			select {
			case <-heal:
			case <-l.ctx.Done():
			}
			p.mu.Lock()
		}
		if l.ctx.Err() != nil {
			p.mu.Unlock()
			return false
		}
		w.writing = true
		p.mu.Unlock()
		n, err := w.dst.Write(b)
		p.mu.Lock()
		w.writing = false
		if w.cut {
			w.cut = false
			_ = w.dst.SetWriteDeadline(time.Time{})
		}
		p.writes.Broadcast()
		p.mu.Unlock()
		b = b[n:]
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return false
		}
	}
	return true
}

func (p *Proxy) abort(l *link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.abortLocked(l, true)
}

// abortLocked ends l; reset sends a TCP RST rather than a FIN.
func (p *Proxy) abortLocked(l *link, reset bool) {
	l.cancel()
	for _, c := range []net.Conn{l.client, l.up} {
		if c == nil {
			continue
		}
		if tc, ok := c.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}
