package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// rpcSubject is an RPC client (adapters/tcp/rpc.New) that says hello
// in OnConnect and whose worker calls Server.Work, which calls the
// client's Client.Twice back: calls in both directions, each answer
// checked.
type rpcSubject struct {
	subjectBase
	rpc      *rpc.Client
	v        *violations
	n        atomic.Int64
	failures atomic.Int64 // calls that failed (faults); not a violation
}

func newRPCSubject(t testing.TB, i int, srv *acceptor, cfg config, v *violations) *rpcSubject {
	name := fmt.Sprintf("rpc-%02d", i)
	proxy := toxitest.NewOn(t, lowAddr(t), srv.addr)
	s := &rpcSubject{subjectBase: newBase(name, "rpc", proxy), v: v}
	r, err := rpc.New(proxy.Addr(), rpc.Options{
		Handlers: map[string]any{
			"Client.Twice": func(_ *rpc2.Client, n int64, twice *int64) error { *twice = 2 * n; return nil },
		},
		PingInterval: pingInterval,
		PingTimeout:  pingTimeout,
		OnConnect: func(ctx context.Context, c *rpc2.Client) error {
			var ok bool
			if err := s.rpc.CallClient(ctx, c, "Server.Hello", name, &ok); err != nil {
				return err
			}
			if !ok {
				return errors.New("hello refused")
			}
			return nil
		},
		Supervisor: supervisor.Settings{
			Name:           name,
			Backoff:        cfg.backoff(4000 + i),
			StableAfter:    stableAfter,
			ConnectTimeout: connectTimeout,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.rpc = r
	return s
}

func (s *rpcSubject) run(ctx context.Context) error { return s.rpc.Run(ctx) }

func (s *rpcSubject) Status() health.Status { return s.rpc.Status() }

func (s *rpcSubject) Subscribe() (<-chan health.Status, func()) { return s.rpc.Subscribe() }

func (s *rpcSubject) consume(context.Context, *sync.WaitGroup) {}

// work calls Server.Work every poolInterval.
func (s *rpcSubject) work(ctx context.Context, wg *sync.WaitGroup) {
	every(ctx, wg, 2*time.Second, func(ctx context.Context) {
		if err := s.work1(ctx); err != nil {
			s.failures.Add(1)
		}
	})
}

// work1 makes one Server.Work call and checks its answer.
func (s *rpcSubject) work1(ctx context.Context) error {
	n := s.n.Add(1)
	var reply int64
	if err := s.rpc.Call(ctx, "Server.Work", n, &reply); err != nil {
		return err
	}
	if reply != 2*n+1 {
		s.v.add(ruleSequence, s.name, "Server.Work(%d) answered %d, want %d", n, reply, 2*n+1)
		return fmt.Errorf("Server.Work(%d) answered %d", n, reply)
	}
	s.messages.Add(1)
	return nil
}

func (s *rpcSubject) roundTrip(ctx context.Context) error { return s.work1(ctx) }

// fence: every call is checked as it returns.
func (s *rpcSubject) fence(context.Context) error { return nil }
