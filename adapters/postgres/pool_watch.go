package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// poolConnector is the Pool's Connector and Watcher. An attempt is a
// ping; a lost pool is reset, not closed, so the same *pgxpool.Pool
// serves the program across outages. Its fields are used by the
// supervisor's goroutine only, and by Pool.Run after the supervisor
// returned.
type poolConnector struct {
	cfg               *pgxpool.Config
	secrets           []string
	interval, timeout time.Duration
	pool              *pgxpool.Pool // made by the first Connect
	dials             dialTracker   // every connection pool dialed, to cut when closing takes too long
}

func (c *poolConnector) Connect(ctx context.Context) (*pgxpool.Pool, error) {
	if c.pool == nil {
		p, err := pgxpool.NewWithConfig(ctx, c.cfg)
		if err != nil {
			return nil, scrub(fmt.Errorf("new pool: %w", err), c.secrets)
		}
		c.pool = p
	}
	if err := c.ping(ctx); err != nil {
		return nil, err
	}
	return c.pool, nil
}

// Close drops every connection of a pool found lost: they lead to a
// server that went away. Connections in use are dropped when released.
func (c *poolConnector) Close(p *pgxpool.Pool) error {
	p.Reset()
	return nil
}

// Watch pings the pool every interval until a ping fails twice in a row.
// The second ping tells one dead backend (pgxpool destroyed it after the
// first failure, and dials a fresh one) from a server that is gone. A
// pool whose every connection is in use is not pinged, since a ping would
// only wait for one of them: the queries in flight will tell.
func (c *poolConnector) Watch(ctx context.Context, p *pgxpool.Pool) error {
	t := time.NewTimer(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if st := p.Stat(); st.AcquiredConns() < st.MaxConns() {
			if err := c.ping(ctx); err != nil && ctx.Err() == nil {
				if err := c.ping(ctx); err != nil {
					return err
				}
			}
		}
		t.Reset(c.interval)
	}
}

// ping pings the pool within the ping timeout.
func (c *poolConnector) ping(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	err := c.pool.Ping(pctx)
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("ping timed out after %v: %w", c.timeout, err)
	default:
		err = fmt.Errorf("ping: %w", err)
	}
	return scrub(err, c.secrets)
}

// close closes the pool when Run ends, within about poolCloseGrace.
func (c *poolConnector) close() {
	if c.pool != nil {
		closePool(c.pool, &c.dials)
	}
}
