package postgres

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// poolCloseGrace is how long closing a pool may take before its
// connections are cut: pgx gives each one up to 15s to say goodbye (a
// cancel request, Terminate, draining what the server still sends), which
// on a stalled network is 15s of a Run that should have returned.
const poolCloseGrace = time.Second

// dialTracker knows every connection a pool dialed, the cancel requests'
// included, so that closing the pool can cut the ones still open after
// poolCloseGrace.
type dialTracker struct {
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

// track wraps cfg's DialFunc so that every connection it makes is tracked.
func (d *dialTracker) track(cfg *pgxpool.Config) {
	dial := cfg.ConnConfig.DialFunc
	if dial == nil {
		dial = (&net.Dialer{KeepAlive: 5 * time.Minute}).DialContext // pgconn's default
	}
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, d: d}
		d.mu.Lock()
		if d.conns == nil {
			d.conns = map[*trackedConn]struct{}{}
		}
		d.conns[tc] = struct{}{}
		d.mu.Unlock()
		return tc, nil
	}
}

// cutAll closes every tracked connection: their reads and writes fail at
// once, so pgx's cleanup of them ends.
func (d *dialTracker) cutAll() {
	d.mu.Lock()
	conns := make([]*trackedConn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	d    *dialTracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.d.mu.Lock()
		delete(c.d.conns, c)
		c.d.mu.Unlock()
	})
	return c.Conn.Close()
}

// closePool closes p, cutting the connections still open after
// poolCloseGrace; it returns once p.Close has.
func closePool(p *pgxpool.Pool, d *dialTracker) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Close()
	}()
	grace := time.NewTimer(poolCloseGrace)
	defer grace.Stop()
	select {
	case <-done:
		return
	case <-grace.C:
		d.cutAll()
	}
	<-done
}
