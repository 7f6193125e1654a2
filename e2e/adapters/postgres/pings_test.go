package postgres_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pingCounter counts the pool's acquires: the Pool's pings, plus any
// query the test runs through the pool. It is set as the pool's Tracer.
type pingCounter struct {
	started, ended atomic.Int64
	end            chan struct{}
}

func newPingCounter() *pingCounter { return &pingCounter{end: make(chan struct{}, 1)} }

func (p *pingCounter) configure(c *pgxpool.Config) { c.ConnConfig.Tracer = p }

func (p *pingCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (p *pingCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (p *pingCounter) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	p.started.Add(1)
	return ctx
}

func (p *pingCounter) TraceAcquireEnd(context.Context, *pgxpool.Pool, pgxpool.TraceAcquireEndData) {
	p.ended.Add(1)
	select {
	case p.end <- struct{}{}:
	default:
	}
}

// waitEnded waits until n more acquires have ended than when it was called.
func (p *pingCounter) waitEnded(t *testing.T, n int64, d time.Duration) {
	t.Helper()
	target := p.ended.Load() + n
	timer := time.NewTimer(d)
	defer timer.Stop()
	for p.ended.Load() < target {
		select {
		case <-p.end:
		case <-timer.C:
			t.Fatalf("%d pings ended within %v, want %d", p.ended.Load()-(target-n), d, n)
		}
	}
}
