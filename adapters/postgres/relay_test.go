package postgres_test

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// relay is a TCP relay in front of a real server that counts the
// connections it accepts and can be cut: while cut, it closes every
// relayed connection and each new one as soon as it is accepted, as a
// load balancer whose server is gone does, so every dial still counts.
// The storm tests keep it rather than redialtest.Proxy (which the other
// tests use): they tell pgx's cancel requests apart among the connections
// refused, which takes reading PostgreSQL's first message, and Proxy.Refuse
// refuses in the kernel, where nothing counts.
type relay struct {
	Addr    string
	Accepts atomic.Int64 // every connection
	Refused atomic.Int64 // those accepted while cut
	Cancels atomic.Int64 // the cancel requests among those refused

	upstream string
	ln       net.Listener
	cut      atomic.Bool
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
	refusing sync.WaitGroup
}

// startRelay relays to upstream until the test ends.
func startRelay(t *testing.T, upstream string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &relay{Addr: ln.Addr().String(), upstream: upstream, ln: ln, conns: map[net.Conn]struct{}{}}
	r.wg.Go(r.serve)
	t.Cleanup(func() {
		_ = ln.Close()
		r.closeAll()
		r.wg.Wait()
		r.refusing.Wait()
	})
	return r
}

// Cut closes every relayed connection and, until Heal, each new one.
func (r *relay) Cut() {
	r.cut.Store(true)
	r.closeAll()
}

// Heal relays new connections again, once the connections refused have
// been told apart.
func (r *relay) Heal() {
	r.cut.Store(false)
	r.refusing.Wait()
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.Accepts.Add(1)
		if r.cut.Load() {
			r.Refused.Add(1)
			r.refusing.Go(func() { r.refuse(c) })
			continue
		}
		r.wg.Go(func() { r.pipe(c) })
	}
}

// refuse closes c, a connection accepted while cut, once it has read
// what c asks first, to count the cancel requests (code 80877102).
func (r *relay) refuse(c net.Conn) {
	defer c.Close()
	var head [8]byte
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := io.ReadFull(c, head[:]); err == nil && binary.BigEndian.Uint32(head[4:]) == 80877102 {
		r.Cancels.Add(1)
	}
}

func (r *relay) pipe(c net.Conn) {
	up, err := net.Dial("tcp", r.upstream)
	if err != nil {
		_ = c.Close()
		return
	}
	if !r.track(c, up) {
		return
	}
	defer r.untrack(c, up)
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	<-done
}

// track registers c and up, or closes both when cut meanwhile.
func (r *relay) track(c, up net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cut.Load() {
		_ = c.Close()
		_ = up.Close()
		return false
	}
	r.conns[c], r.conns[up] = struct{}{}, struct{}{}
	return true
}

func (r *relay) untrack(c, up net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	delete(r.conns, up)
	r.mu.Unlock()
}

func (r *relay) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		_ = c.Close()
	}
}
