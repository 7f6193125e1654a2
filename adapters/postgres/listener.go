package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/redial-go/redial/supervisor"
)

// Defaults of ListenerOptions.
const (
	DefaultBuffer               = 64 // the capacity of a Listener's Events channel
	DefaultListenerPingInterval = 30 * time.Second
)

// ListenerOptions configures NewListener.
type ListenerOptions struct {
	Options
	// Channels are LISTENed on every connect. More can be added while the
	// Listener runs, with Listen. Names are used exactly as written (quoted
	// identifiers): pg_notify('Orders', ...) reaches "Orders" only.
	Channels []string
	// PingInterval is how long the connection may stay silent (no
	// notification) before the Listener pings the server; 0 means
	// DefaultListenerPingInterval (30s). PingTimeout bounds the ping; 0
	// means DefaultPingTimeout (3s). A LISTEN connection only reads, so
	// without a ping a path that went silent (a NAT entry dropped, a
	// peer that vanished) would look connected until TCP keep-alive gave
	// up, minutes later.
	PingInterval, PingTimeout time.Duration
	// Buffer is the capacity of the Events channel; 0 means DefaultBuffer
	// (64). When it is full the Listener stops reading from the server
	// until the program catches up: memory stays bounded and the server
	// queues the notifications meanwhile.
	Buffer int
	// Configure, when set, is called once by NewListener with the parsed
	// config. nil: none. Its BuildContextWatcherHandler is then replaced:
	// the Listener interrupts its wait by cancelling a context, which must
	// be a read deadline, never a cancel request that could hit a LISTEN.
	Configure func(*pgx.ConnConfig)
}

// Event is one delivery of a Listener: a notification, or (Missed true)
// the news that notifications may have been lost.
type Event struct {
	Channel string
	Payload string
	PID     uint32 // the notifying backend's process id
	// Missed is true on the one event delivered after every reconnect
	// (never after the first connect), once the channels are LISTENed
	// again: notifications sent while the Listener was disconnected are
	// lost. Re-read whatever state the notifications describe (pgxlisten's
	// backlog): every change made after this point is notified. Channel,
	// Payload and PID are empty.
	Missed bool
}

// Listener owns a dedicated connection that LISTENs on a set of channels
// and delivers notifications on a bounded channel, reconnecting and
// re-LISTENing whenever the connection breaks. Its methods are safe for
// concurrent use; the connection itself is never exposed, since a
// *pgx.Conn cannot be shared with the goroutine that waits on it.
type Listener struct {
	sup                       *supervisor.Supervisor[*pgx.Conn]
	events                    chan Event
	pingInterval, pingTimeout time.Duration
	done                      chan struct{} // closed when Run returns
	started                   atomic.Bool

	mu        sync.Mutex
	channels  []string           // LISTENed on every connect, in the order added
	pending   []*listenRequest   // Listen calls the live connection has not served yet
	interrupt context.CancelFunc // ends Watch's wait for a notification; nil outside it
	wake      chan struct{}      // capacity 1: a Listen call is pending (for Watch blocked delivering)

	// Owned by the supervisor's goroutine (OnConnect and Watch).
	watches int  // connections that reached Connected
	missed  bool // a Missed event is owed to the program (one, however many reconnects it covers)
}

// listenRequest is one Listen call waiting for its LISTEN to run.
type listenRequest struct {
	channel string
	done    chan struct{}
}

// NewListener returns a Listener; Run starts it. Defaults: see Options
// and ListenerOptions; the Name is "postgres-listener". Bad options are
// an error that names the field.
func NewListener(o ListenerOptions) (*Listener, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Buffer < 0 {
		return nil, fmt.Errorf("%w: Buffer %d is negative", ErrInvalidOptions, o.Buffer)
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout, DefaultListenerPingInterval); err != nil {
		return nil, err
	}
	if o.Buffer == 0 {
		o.Buffer = DefaultBuffer
	}
	l := &Listener{events: make(chan Event, o.Buffer), done: make(chan struct{}), wake: make(chan struct{}, 1),
		pingInterval: o.PingInterval, pingTimeout: o.PingTimeout}
	for i, ch := range o.Channels {
		if err := checkChannel(ch); err != nil {
			return nil, fmt.Errorf("%w: Channels[%d] %w", ErrInvalidOptions, i, err)
		}
		if !slices.Contains(l.channels, ch) {
			l.channels = append(l.channels, ch)
		}
	}
	cfg, err := parseConn(o.DSN)
	if err != nil {
		return nil, err
	}
	if o.Configure != nil {
		o.Configure(cfg)
	}
	// Watch interrupts WaitForNotification by cancelling its context: with
	// the deadline handler that is a read timeout, which pgconn survives.
	// A cancel request (the other handler) could cancel a LISTEN instead.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	c := &listenConnector{connector: connector{cfg: cfg, secrets: secretsOf(o.DSN, &cfg.Config)}, l: l}
	l.sup, err = newSupervisor[*pgx.Conn](c, supervise(o.Options, "postgres-listener", c.secrets, l.onConnect))
	if err != nil {
		return nil, err
	}
	return l, nil
}

// checkChannel rejects names PostgreSQL would not deliver on as written.
func checkChannel(ch string) error {
	switch {
	case ch == "":
		return fmt.Errorf("is empty")
	case strings.IndexByte(ch, 0) >= 0:
		return fmt.Errorf("%q contains a NUL byte", ch)
	case len(ch) > 63:
		return fmt.Errorf("%q is longer than 63 bytes (PostgreSQL's NAMEDATALEN)", ch)
	}
	return nil
}
