package httpcore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/internal/seed"
	"github.com/redial-go/redial/supervisor"
)

// Core is one adapter instance's shared part: its spec, its options, its
// endpoints and its secret set. Its methods are safe for concurrent use.
type Core struct {
	*Spec // the adapter's, shared by its supervisors
	Config
	eps     endpoints
	set     *redact.Set
	maxHint time.Duration // the supervisor's MaxHint: a HandshakeError shows what is honored
	poison  poison

	mu  sync.Mutex
	rng rand.PCG // spreads close hints; under mu
}

// Library is what an adapter's transport library does differently. The
// core calls it from the supervisor's Connector methods. It watches its
// connections as a Watcher or a Pinger (a heartbeat), or not at all.
type Library[C comparable] interface {
	// Dial makes one handshake of a, bounded by ctx. A server that
	// answered but refused is (zero, resp, err): the core reads resp's
	// status and headers, and closes its body unread.
	Dial(ctx context.Context, a *Attempt, st *State) (C, *http.Response, error)
	// Close closes conn: with the close handshake when st.Polite, else at
	// once.
	Close(conn C, st *State) error
}

// Watcher is a Library that watches its connections itself (sse reads its
// stream): Watch is the supervisor's Watch of conn.
type Watcher[C comparable] interface {
	Watch(ctx context.Context, conn C, st *State) error
}

// New checks cfg (the url first) and returns the supervisor of an adapter
// with spec sp: its Connector is the core's over the Library that lib
// builds (and may refuse an option the core does not know), its Classify
// the core's before so's, its default Name the url, shown.
func New[C comparable](sp *Spec, cfg Config, so supervisor.Options[C], lib func(*Core) (Library[C], error)) (*supervisor.Supervisor[C], error) {
	c := &Core{Spec: sp, Config: cfg, maxHint: cmp.Or(so.MaxHint, backoff.DefaultMaxHint)}
	eps, secrets, err := parseEndpoints(c.Spec, &c.Config, so.Name)
	if err != nil {
		return nil, err
	}
	if err := c.Config.validate(c.Spec); err != nil {
		return nil, err
	}
	c.eps, c.set = eps, redact.NewSet(secrets)
	c.rng.Seed(seed.Pair())
	l, err := lib(c)
	if err != nil {
		return nil, err
	}
	conn := &connector[C]{Core: c, lib: l}
	sa := adapt.Spec{Pkg: sp.Pkg, Name: eps.list[0].shown, Classify: c.Classify, Set: c.set}
	s, err := adapt.New[C](sa, conn, so)
	conn.sup = s // before Run: a heartbeat invalidates through it
	return s, err
}

// connector is the supervisor's Connector and Watcher over a Library.
type connector[C comparable] struct {
	*Core
	lib Library[C]
	sup *supervisor.Supervisor[C]
}

// Endpoints returns the url and the Replicas, shown.
func (c *connector[C]) Endpoints() []string {
	out := make([]string, len(c.eps.list))
	for i, e := range c.eps.list {
		out[i] = e.shown
	}
	return out
}

func (c *connector[C]) Connect(ctx context.Context) (C, error) { return c.ConnectTo(ctx, 0) }

// ConnectTo makes one attempt on endpoint i: BeforeConnect, then the
// library's Dial. Its errors hold no secret and no response body.
func (c *connector[C]) ConnectTo(ctx context.Context, i int) (C, error) {
	var zero C
	a, err := c.prepare(ctx, i)
	if err != nil {
		return zero, err
	}
	st := newState(c.Core, i)
	conn, resp, err := c.lib.Dial(ctx, a, st)
	if resp != nil || err != nil {
		return zero, c.dialError(ctx, i, err, resp)
	}
	keep(conn, st)
	return conn, nil
}

func (c *connector[C]) Watch(ctx context.Context, conn C) error {
	st := StateOf(conn)
	switch lib := c.lib.(type) {
	case nil:
	case Watcher[C]:
		if st != nil {
			return lib.Watch(ctx, conn, st)
		}
	case Pinger[C]:
		if st != nil {
			return c.heartbeat(ctx, conn, st)
		}
	}
	<-ctx.Done() // nothing to watch with
	return ctx.Err()
}

// Close closes conn: politely (the library's close handshake, 1000, or
// 1001 going away while the supervisor drains) unless
// it is known to be broken, and after the adapter's own reader, if any,
// ended. Its error holds no secret.
func (c *connector[C]) Close(conn C) error {
	st := takeState(conn)
	if st == nil {
		st = newState(c.Core, -1)
		st.broken.Store(true)
	}
	st.polite.Store(!st.broken.Load())
	st.away.Store(c.sup != nil && c.sup.Draining())
	err := c.lib.Close(conn, st)
	if st.readDone != nil {
		<-st.readDone
	}
	if err == nil || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return redact.Scrubbed(fmt.Sprintf("%s: %s", c.Step("close", st.Endpoint), c.set.Text(err.Error())), redact.SafeChain(err)...)
}
