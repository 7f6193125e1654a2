package amqp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/callback"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// closeTimeout bounds the polite close of a connection when the
// supervisor stops or the program is done with it.
const closeTimeout = time.Second

// connector dials AMQP connections, declares the Topology on each and
// watches them. It is a supervisor.Connector, Watcher and BrokenChecker
// for *amqp091.Connection; its methods are safe for concurrent use.
type connector struct {
	o       Options
	targets []target
	name    string      // the supervisor's Name, sent as connection_name
	secrets *redact.Set // every endpoint's, and what BeforeConnect set lately

	mu sync.Mutex
	// refusals counts, per endpoint, the logins in a row that the broker
	// answered by closing the socket. An attempt abandoned at
	// ConnectTimeout may still write it while the next one runs.
	refusals []int

	links   sync.Map             // *amqp091.Connection -> *link, from Connect to Close
	current atomic.Pointer[link] // the link being watched: the live connection
}

// link is what the connector knows of one connection.
type link struct {
	c        *connector
	conn     *amqp091.Connection
	wire     *wire
	endpoint int
	closes   chan *amqp091.Error
	blocks   chan amqp091.Blocking
	blocked  atomic.Pointer[blockState] // nil while not blocked
	broken   atomic.Bool                // found dead: Close skips the polite close
	dead     chan struct{}              // closed when the watch or Close ended it; reason is then set
	reason   error
	endOnce  sync.Once

	pubMu sync.Mutex
	pub   *publisher // the confirm-mode channel Publish uses; nil until the first Publish
}

// blockState is a connection.blocked that lasts.
type blockState struct {
	err  error         // why, for Status
	over chan struct{} // closed when it ends (connection.unblocked, or the connection's end)
}

func newConnector(ts []target, o Options) *connector {
	base := ts[0].secrets
	for _, t := range ts[1:] {
		base = base.Join(t.secrets)
	}
	return &connector{o: o, targets: ts, refusals: make([]int, len(ts)), secrets: redact.NewSet(base)}
}

// at names endpoint i in errors when there are several: `"amqp://xxxxx@b:5672/": `.
func (c *connector) at(i int) string {
	if len(c.targets) == 1 {
		return ""
	}
	return strconv.Quote(c.targets[i].shown) + ": "
}

// Connect makes one attempt on the url.
func (c *connector) Connect(ctx context.Context) (*amqp091.Connection, error) {
	return c.connectTo(ctx, 0)
}

// connectTo dials endpoint i, logs in, opens the vhost and runs the
// Topology, all bounded by ctx (the attempt's): when ctx ends first the
// socket is closed, which ends whatever call waits on it.
func (c *connector) connectTo(ctx context.Context, i int) (*amqp091.Connection, error) {
	raw, err := c.prepare(ctx, i)
	if err != nil {
		return nil, err
	}
	props := amqp091.NewConnectionProperties()
	props.SetClientConnectionName(c.name)
	cfg := amqp091.Config{Heartbeat: c.o.Heartbeat, Properties: props, Locale: "en_US"}
	if c.o.TLS != nil {
		cfg.TLSClientConfig = c.o.TLS.Clone() // amqp091 sets its ServerName
	}
	var w *wire
	stop := func() bool { return true }
	cfg.Dial = dialer(ctx, &w, &stop)
	conn, err := amqp091.DialConfig(raw, cfg)
	if err != nil {
		stop()
		if w != nil {
			_ = w.Close() // a failed handshake may leave amqp091's reader on it
		}
		if why := ended(ctx); why != nil { // the attempt ended the login, not the broker
			return nil, c.safe(fmt.Errorf("%s%w", c.at(i), why))
		}
		return nil, c.loginError(i, err)
	}
	c.refused(i, false)
	// amqp091 clears the handshake's deadline once the connection is open
	// and sets the heartbeat's only after the next frame: a path silent
	// from now on would never be given up. Arm it as amqp091 would.
	_ = w.SetReadDeadline(time.Now().Add(conn.Config.Heartbeat * 3 / 2))
	l := &link{c: c, conn: conn, wire: w, endpoint: i,
		dead: make(chan struct{}), closes: conn.NotifyClose(make(chan *amqp091.Error, 1)),
		blocks: conn.NotifyBlocked(make(chan amqp091.Blocking, 8))}
	if c.o.Topology != nil {
		err = c.topologyGuarded(ctx, conn, w)
	}
	if !stop() && err == nil {
		err = fmt.Errorf("%s%w", c.at(i), context.Cause(ctx)) // the attempt ended: w is closed
	}
	if err != nil {
		_ = w.Close()
		return nil, c.safe(err)
	}
	c.links.Store(conn, l)
	return conn, nil
}

// ended says why ctx ended, also when only its deadline has passed (the
// socket's, which may fire before ctx's timer does); nil while it runs.
func ended(ctx context.Context) error {
	if why := context.Cause(ctx); why != nil {
		return why
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// loginError is Connect's error for a failed dial or login on endpoint
// i. A broker refuses a wrong password by closing the socket, which
// amqp091 reports as ErrCredentials; a broker that died at that moment
// looks the same. So the first such refusal is retried, and only a second
// one in a row is kept as ErrCredentials (which Classify makes permanent).
func (c *connector) loginError(i int, err error) error {
	if !errors.Is(err, amqp091.ErrCredentials) {
		c.refused(i, false)
		return c.safe(fmt.Errorf("%s%w", c.at(i), err))
	}
	if c.refused(i, true) < 2 && c.o.BeforeConnect == nil {
		return redact.Scrubbed(c.at(i) + "the broker closed the connection at login: a wrong user name or password? (retried once: a broker going down looks the same)")
	}
	return c.safe(fmt.Errorf("%slogin refused: %w", c.at(i), err))
}

// refused counts a refused login on endpoint i, or resets the count, and
// returns it.
func (c *connector) refused(i int, again bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refusals[i]++
	if !again {
		c.refusals[i] = 0
	}
	return c.refusals[i]
}

// topologyGuarded runs topology; a panic in the program's Topology closes
// w, the connection's socket, before it goes on named (nothing of the
// connection is left running), and the supervisor fails.
func (c *connector) topologyGuarded(ctx context.Context, conn *amqp091.Connection, w *wire) error {
	defer func() {
		if v := recover(); v != nil {
			_ = w.Close()
			panic(v)
		}
	}()
	return callback.Guard("Topology", func() error { return c.topology(ctx, conn) })
}

// topology runs the program's Topology with a channel of its own. A
// channel exception it caused without waiting (a noWait declare) is its
// error too.
func (c *connector) topology(ctx context.Context, conn *amqp091.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("topology: open a channel: %w", err)
	}
	closed := ch.NotifyClose(make(chan *amqp091.Error, 1))
	err = c.o.Topology(ctx, ch)
	if cerr := ch.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if e, ok := <-closed; ok && e != nil && err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("topology: %w", err)
	}
	return nil
}

// prepare returns the url this attempt on endpoint i dials. With
// BeforeConnect it is the hook's copy, checked again (a hook that breaks
// the url fails the attempt for good), whose secrets the set learns.
func (c *connector) prepare(ctx context.Context, i int) (string, error) {
	t := c.targets[i]
	if c.o.BeforeConnect == nil {
		return t.raw, nil
	}
	u := *t.parsed
	if u.User != nil {
		user := *u.User
		u.User = &user
	}
	hookErr := callback.Guard("BeforeConnect", func() error { return c.o.BeforeConnect(ctx, &u) })
	nt, err := parseTarget("url", u.String())
	if err != nil {
		return "", backoff.Permanent(fmt.Errorf("BeforeConnect: %w", err))
	}
	c.secrets.Remember(nt.secrets)
	if hookErr != nil {
		return "", c.secrets.Error(fmt.Errorf("BeforeConnect: %w", hookErr), redact.SafeChain(hookErr)...)
	}
	return u.String(), nil
}

// linkOf returns conn's link, nil when this connector does not hold it
// (any more).
func (c *connector) linkOf(conn *amqp091.Connection) *link {
	if l, ok := c.links.Load(conn); ok {
		return l.(*link)
	}
	return nil
}

// Watch waits until conn breaks, keeping track of connection.blocked
// meanwhile.
func (c *connector) Watch(ctx context.Context, conn *amqp091.Connection) error {
	l := c.linkOf(conn)
	if l == nil {
		return errors.New("connection not made by this connector")
	}
	c.current.Store(l)
	defer c.current.CompareAndSwap(l, nil)
	for {
		select {
		case e, ok := <-l.closes:
			l.broken.Store(true)
			return l.end(l.lost(e, ok))
		case b := <-l.blocks:
			if b.Active {
				l.block(b.Reason)
			} else {
				l.unblock()
			}
		case <-ctx.Done():
			if conn.IsClosed() {
				l.broken.Store(true)
			}
			return l.end(context.Cause(ctx))
		}
	}
}

// lost says why the connection broke, from its close notification e (ok
// false: closed without one, by the program).
func (l *link) lost(e *amqp091.Error, ok bool) error {
	hb := l.conn.Config.Heartbeat
	switch {
	case !ok || e == nil:
		return errors.New("connection closed (not by the broker)")
	case l.wire.silent():
		return fmt.Errorf("broker silent: no frame for %v (Heartbeat %v): %w: %w", hb*3/2, hb, supervisor.ErrSilent, l.wire.err())
	case !e.Server:
		if rerr := l.wire.err(); rerr != nil {
			return rerr
		}
		return e
	}
	return fmt.Errorf("the broker closed the connection: %w", e)
}

// end records why the connection ended and says so to whoever waits
// (dead); the first reason stays. It returns that reason.
func (l *link) end(reason error) error {
	l.endOnce.Do(func() {
		l.reason = l.c.safe(reason)
		l.unblock()
		close(l.dead)
	})
	return l.reason
}

func (l *link) block(reason string) {
	if l.blocked.Load() != nil {
		return
	}
	err := redact.Scrubbed(fmt.Sprintf("%s since %s: %s", ErrBlocked, time.Now().Format(time.RFC3339), l.c.secrets.Text(reason)), ErrBlocked)
	l.blocked.Store(&blockState{err: err, over: make(chan struct{})})
}

func (l *link) unblock() {
	if b := l.blocked.Swap(nil); b != nil {
		close(b.over)
	}
}

// Close closes conn: politely (connection.close, waiting at most
// closeTimeout) unless it is known to be broken; and its publisher, whose
// unconfirmed messages get ErrMaybeDelivered.
func (c *connector) Close(conn *amqp091.Connection) error {
	v, _ := c.links.LoadAndDelete(conn)
	l, _ := v.(*link)
	var err error
	switch {
	case l == nil || conn.IsClosed():
	case l.broken.Load():
		_ = l.wire.Close()
	default:
		err = conn.CloseDeadline(time.Now().Add(closeTimeout))
	}
	if l != nil {
		_ = l.wire.Close()
		l.end(errors.New("connection closed"))
		l.pubMu.Lock()
		p := l.pub
		l.pubMu.Unlock()
		if p != nil {
			<-p.done // its channel closed with the connection
		}
	}
	if err != nil && !errors.Is(err, amqp091.ErrClosed) {
		return c.safe(fmt.Errorf("close: %w", err))
	}
	return nil
}

// Broken reports whether err, from the program's use of a connection (Do),
// means the connection is gone: a closed connection, a connection-level
// AMQP error, a network error. A channel exception (403, 404, 405, 406)
// closes only its channel.
func (c *connector) Broken(err error) bool {
	var ae *amqp091.Error
	if errors.As(err, &ae) {
		return !channelLevel(ae.Code)
	}
	return len(redact.SafeChain(err)) > 0
}

// Endpoints returns the url and the Replicas, redacted.
func (c *connector) Endpoints() []string {
	out := make([]string, len(c.targets))
	for i, t := range c.targets {
		out[i] = t.shown
	}
	return out
}

// ConnectTo makes one attempt on endpoint i.
func (c *connector) ConnectTo(ctx context.Context, i int) (*amqp091.Connection, error) {
	return c.connectTo(ctx, i)
}
