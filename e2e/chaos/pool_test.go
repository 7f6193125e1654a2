package chaos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/pgtest"
	"github.com/redial-go/redial/supervisor"
)

// poolMaxConns is each Pool's MaxConns: its limit of live server-side
// connections (see doc.go, "one connection").
const poolMaxConns = 2

// poolInterval is the time between two queries of a Pool's worker.
const poolInterval = 50 * time.Millisecond

// poolSubject is a postgres.Pool through its own proxy, with one worker
// running queries whose answers it checks.
type poolSubject struct {
	subjectBase
	p        *postgres.Pool
	v        *violations
	failures atomic.Int64 // queries that failed (faults); not a violation
}

func newPoolSubject(t testing.TB, i int, c *pgtest.Cluster, cfg config, v *violations, live *liveCounter) *poolSubject {
	name := fmt.Sprintf("pgp-%02d", i)
	proxy := toxitest.NewOn(t, lowAddr(t), c.Addr())
	dsn := c.DSNVia(proxy.Addr(), "application_name", appPrefix+name, "pool_max_conns", fmt.Sprint(poolMaxConns))
	p, err := postgres.NewPool(dsn, postgres.PoolOptions{
		PingInterval: pingInterval,
		PingTimeout:  pingTimeout,
		Supervisor: supervisor.Settings{
			Name: name, Backoff: cfg.backoff(2000 + i), StableAfter: stableAfter, ConnectTimeout: connectTimeout,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	live.setLimit(name, poolMaxConns)
	return &poolSubject{subjectBase: newBase(name, "pool", proxy), p: p, v: v}
}

func (s *poolSubject) run(ctx context.Context) error { return s.p.Run(ctx) }

func (s *poolSubject) Status() health.Status { return s.p.Status() }

func (s *poolSubject) Subscribe() (<-chan health.Status, func()) { return s.p.Subscribe() }

func (s *poolSubject) consume(context.Context, *sync.WaitGroup) {}

// work queries the pool every poolInterval and checks each answer.
func (s *poolSubject) work(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		tick := time.NewTicker(poolInterval)
		defer tick.Stop()
		for k := int64(1); ; k++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if ctx.Err() != nil {
				return
			}
			qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			var got int64
			err := s.p.Do(qctx, func(ctx context.Context, conn *pgxpool.Conn) error {
				return conn.QueryRow(ctx, "SELECT $1::bigint", k).Scan(&got)
			})
			cancel()
			switch {
			case err != nil:
				s.failures.Add(1)
			case got != k:
				s.v.add(ruleSequence, s.name, "query for %d answered %d", k, got)
			default:
				s.messages.Add(1)
			}
		}
	})
}

// roundTrip runs one query on the pool.
func (s *poolSubject) roundTrip(ctx context.Context) error {
	return s.p.Do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		var one int
		return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
	})
}

// acquire takes a pooled connection for a round trip, logging one in when
// none is idle (the worker and the pinger may hold both): that login is
// the pool growing, not the connection its Status describes, and a SCRAM
// login under -race on two busy cores took 725ms, most of rtTimeout. The
// connection is held inside a Do, as a program holds one, until release.
func (s *poolSubject) acquire(ctx context.Context) (trip func(context.Context) error, release func(), err error) {
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx)) // outlives acquire's bound, until release
	got, hold, ended := make(chan *pgxpool.Conn, 1), make(chan error, 1), make(chan error, 1)
	go func() {
		ended <- s.p.Do(dctx, func(_ context.Context, conn *pgxpool.Conn) error {
			got <- conn
			return <-hold // the round trip's error: the Pool learns from it, as from a program's query
		})
	}()
	select {
	case conn := <-got:
		var tripErr error
		return func(ctx context.Context) error {
				var one int
				tripErr = conn.QueryRow(ctx, "SELECT 1").Scan(&one)
				return tripErr
			}, func() {
				hold <- tripErr
				<-ended
				cancel()
			}, nil
	case err := <-ended:
		cancel()
		return nil, nil, err
	case <-ctx.Done():
		cancel()
		select {
		case <-got: // acquired as ctx ended
			hold <- nil
			<-ended
		case <-ended:
		}
		return nil, nil, ctx.Err()
	}
}

// fence: a pool has no sequence.
func (s *poolSubject) fence(context.Context) error { return nil }
