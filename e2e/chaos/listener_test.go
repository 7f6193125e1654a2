package chaos

import (
	"context"
	"errors"
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

// errHelper marks a round trip that failed on the test's side (its own
// NOTIFY could not be sent): no verdict on the subject.
var errHelper = errors.New("the test's own connection failed")

// listenerSubject is a postgres.Listener on one channel, through its own
// proxy. The notifier sends it numbered notifications ("s N") straight to
// the cluster; round trips are notifications "p N".
type listenerSubject struct {
	subjectBase
	l       *postgres.Listener
	helper  *pgxpool.Pool
	channel string
	notes   *noteCheck
	probes  probeBox
	brk     string
	sent    atomic.Uint64 // the last number sent; written by the notifier only
}

func newListenerSubject(t testing.TB, i int, c *pgtest.Cluster, helper *pgxpool.Pool, cfg config, v *violations) *listenerSubject {
	name := fmt.Sprintf("pgl-%02d", i)
	proxy := toxitest.NewOn(t, lowAddr(t), c.Addr())
	s := &listenerSubject{subjectBase: newBase(name, "listener", proxy), helper: helper, channel: "chaos_" + name, notes: newNoteCheck(name, v)}
	if i == 0 {
		s.brk = cfg.brk
	}
	l, err := postgres.NewListener(c.DSNVia(proxy.Addr(), "application_name", appPrefix+name), postgres.ListenerOptions{
		Channels: []string{s.channel},
		Supervisor: supervisor.Settings{
			Name: name, Backoff: cfg.backoff(1000 + i), StableAfter: stableAfter, ConnectTimeout: connectTimeout,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.l = l
	return s
}

func (s *listenerSubject) run(ctx context.Context) error { return s.l.Run(ctx) }

func (s *listenerSubject) Status() health.Status { return s.l.Status() }

func (s *listenerSubject) Subscribe() (<-chan health.Status, func()) { return s.l.Subscribe() }

// consume ranges over Notifications until the Listener is done (once
// Run has returned, with what it had received delivered) or ctx ends. The
// error wrapping postgres.ErrMissed, yielded once after every reconnect,
// is the signal that covers a gap; no other error is one.
func (s *listenerSubject) consume(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		for ev, err := range s.l.Notifications(ctx) {
			var n uint64
			switch {
			case errors.Is(err, postgres.ErrMissed):
				s.notes.onMissed()
			case err != nil:
			case scan(ev.Payload, "s %d", &n):
				s.notes.onNumber(n)
				s.messages.Add(1)
			case scan(ev.Payload, "p %d", &n):
				if s.brk != breakDropProbe {
					s.probes.deliver(n)
				}
			}
		}
	})
}

// work: the notifier sends to every Listener from one goroutine.
func (s *listenerSubject) work(context.Context, *sync.WaitGroup) {}

// send sends the next numbered notification; on an error the number is
// ambiguous (it may have committed) and is sent again next time.
func (s *listenerSubject) send(ctx context.Context) (uint64, error) {
	n := s.sent.Load() + 1
	if s.brk == breakSkipNotify && n == 50 {
		n++ // broken on purpose: a number never sent
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := s.helper.Exec(sctx, "SELECT pg_notify($1, $2)", s.channel, fmt.Sprintf("s %d", n)); err != nil {
		s.notes.markAmbiguous(n)
		return n, err
	}
	s.sent.Store(n)
	return n, nil
}

// roundTrip sends a notification straight to the cluster and waits until
// the Listener delivers it.
func (s *listenerSubject) roundTrip(ctx context.Context) error {
	n, delivered := s.probes.expect()
	defer s.probes.forget(n)
	if _, err := s.helper.Exec(ctx, "SELECT pg_notify($1, $2)", s.channel, fmt.Sprintf("p %d", n)); err != nil {
		return fmt.Errorf("%w: %v", errHelper, err)
	}
	select {
	case <-delivered:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("notification \"p %d\" not delivered: %w", n, ctx.Err())
	}
}

// fence waits for the next numbered notification the notifier sends:
// every number before it has then been checked.
func (s *listenerSubject) fence(ctx context.Context) error {
	return s.notes.waitFor(ctx, s.sent.Load()+1)
}

// pause waits d unless ctx ends first; it reports whether d passed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func scan(payload, format string, n *uint64) bool {
	k, _ := fmt.Sscanf(payload, format, n)
	return k == 1
}
