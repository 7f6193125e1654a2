package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// Defaults of ListenerOptions.
const (
	DefaultBuffer               = 64 // notifications a Listener holds for the program
	DefaultListenerPingInterval = 10 * time.Second
)

// ListenerOptions configures NewListener. The zero value of every field
// means its default; NewListener copies it.
type ListenerOptions struct {
	// Channels are LISTENed on every connect. More can be added while the
	// Listener runs, with Listen. Names are used exactly as written (quoted
	// identifiers): pg_notify('Orders', ...) reaches "Orders" only. nil:
	// none yet.
	Channels []string
	// PingInterval is how long the connection may stay silent (no
	// notification) before the Listener pings the server; 0 means
	// DefaultListenerPingInterval (10s). PingTimeout bounds the ping, and,
	// unless the DSN sets connect_timeout, each connect too (with
	// Supervisor.ConnectTimeout if that is shorter); 0 means
	// DefaultPingTimeout (3s). A LISTEN connection only reads, so
	// without a ping a path that went silent (a NAT entry dropped, a
	// peer that vanished) would look connected until TCP keep-alive gave
	// up, minutes later.
	PingInterval, PingTimeout time.Duration
	// Buffer is how many notifications the Listener holds for the program;
	// 0 means DefaultBuffer (64). When it is full the Listener stops
	// reading from the server until the program catches up: memory stays
	// bounded and the server queues the notifications meanwhile.
	Buffer int
	// Configure, when set, is called once by NewListener with the parsed
	// config. nil: none. Its BuildContextWatcherHandler is then replaced:
	// the Listener interrupts its wait by cancelling a context, which must
	// be a read deadline, never a cancel request that could hit a LISTEN.
	Configure func(*pgx.ConnConfig)
	// BeforeConnect, when set, is called before every connection attempt
	// with the copy of the parsed config the attempt dials with (its Host
	// and Port those of the one host it dials), and may change it:
	// cfg.Password to a rotating password or an IAM authentication token,
	// most often. The password it leaves there is masked like the DSN's
	// wherever it could show. An error from it fails the attempt (retried
	// with the backoff, unless it is backoff.Permanent). With it set, a
	// login refused with 28P01 or 28000 is retried with the backoff rather
	// than given up on: the next attempt may carry new credentials. nil:
	// the DSN's credentials, and those refusals are final.
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after the server refused
	// a connection with SQLSTATE 53300 (too many connections); 0 means
	// DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// Supervisor configures the Listener's supervisor; see supervisor.New
	// for its defaults. An empty Name becomes "postgres listener " and the
	// DSN's target, redacted.
	// Its Classify, if set, runs after this package's. The connection
	// itself stays private, so there is no OnConnect: the Listener's own
	// LISTENs on every connect.
	Supervisor supervisor.Settings
}

// Notification is one notification a Listener received.
type Notification struct {
	Channel string
	Payload string
	PID     uint32 // the notifying backend's process id
}

// Listener owns a dedicated connection that LISTENs on a set of channels
// and hands the notifications to the program through Notifications,
// reconnecting and re-LISTENing whenever the connection breaks. It offers
// the supervisor's Run, Status, Subscribe, Done, Err, Name and History.
// Its methods are safe for concurrent use; the connection itself is never
// exposed, since a *pgx.Conn cannot be shared with the goroutine that
// waits on it.
type Listener struct {
	sup                       *supervisor.Supervisor[*pgx.Conn]
	items                     chan item // the bounded buffer, in the order the server sent them
	pingInterval, pingTimeout time.Duration
	t                         target

	mu        sync.Mutex
	channels  []string           // LISTENed on every connect, in the order added
	pending   []*listenRequest   // Listen calls the live connection has not served yet
	interrupt context.CancelFunc // ends Watch's wait for a notification; nil outside it
	wake      chan struct{}      // capacity 1: a Listen call is pending (for Watch blocked delivering)

	// Owned by the supervisor's goroutine (OnConnect and Watch).
	owed bool  // an ErrMissed error is owed to the program (one, however many reconnects it covers)
	lost error // why the connection was lost, for that error; nil when unknown
}

// item is one delivery: a notification, or the ErrMissed error.
type item struct {
	n   Notification
	err error
}

// listenRequest is one Listen call waiting for its LISTEN to run.
type listenRequest struct {
	channel string
	done    chan struct{}
}

// NewListener returns a Listener on dsn (see NewConn for its forms); Run
// starts it. Defaults: no Channels yet, PingInterval 10s, PingTimeout 3s
// (a silent path is found within 13s), Buffer 64, no Configure, no
// BeforeConnect, TooManyConnectionsHint 5s, the supervisor's own and Name
// "postgres listener " and the redacted target. Every connect (the dial,
// TLS and the login) and every cancel request is bounded by the DSN's
// connect_timeout, or else by the shorter of PingTimeout and
// Supervisor.ConnectTimeout (3s with the defaults): an attempt stuck on a
// path that died fails that soon.
// Bad options are one error wrapping supervisor.ErrInvalidOptions that
// names the field. With several hosts in the DSN, a Listener that lost
// its host LISTENs on the next one at once (see the package
// documentation), and yields ErrMissed as after any reconnect.
func NewListener(dsn string, o ListenerOptions) (*Listener, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	if o.Buffer < 0 {
		return nil, opterr.New(pkg, "Buffer", o.Buffer, "negative")
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout, DefaultListenerPingInterval); err != nil {
		return nil, err
	}
	hint, err := checkHint(o.TooManyConnectionsHint)
	if err != nil {
		return nil, err
	}
	if o.Buffer == 0 {
		o.Buffer = DefaultBuffer
	}
	l := &Listener{items: make(chan item, o.Buffer), wake: make(chan struct{}, 1),
		pingInterval: o.PingInterval, pingTimeout: o.PingTimeout}
	for i, ch := range o.Channels {
		if problem := checkChannel(ch); problem != "" {
			return nil, opterr.New(pkg, "Channels["+strconv.Itoa(i)+"]", channelValue(ch), "%s", problem)
		}
		if !slices.Contains(l.channels, ch) {
			l.channels = append(l.channels, ch)
		}
	}
	cfg, err := parseConn(dsn)
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
	l.t = newTarget("listener", dsn, &cfg.Config, hint, o.BeforeConnect != nil)
	c := &listenConnector{connector: newConnector(cfg, l.t, o.BeforeConnect, min(connectTimeout(o.Supervisor), o.PingTimeout)), l: l}
	if l.t.several() {
		l.sup, err = newSupervisor[*pgx.Conn](l.t, listenReplicas{c}, supervisor.Options[*pgx.Conn]{Settings: o.Supervisor, OnConnect: l.onConnect})
	} else {
		l.sup, err = newSupervisor(l.t, c, supervisor.Options[*pgx.Conn]{Settings: o.Supervisor, OnConnect: l.onConnect})
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// checkChannel returns what makes ch a name PostgreSQL would not deliver
// on as written, or "".
func checkChannel(ch string) string {
	switch {
	case ch == "":
		return "empty"
	case strings.IndexByte(ch, 0) >= 0:
		return "contains a NUL byte"
	case len(ch) > 63:
		return "longer than 63 bytes (PostgreSQL's NAMEDATALEN)"
	}
	return ""
}

// channelValue is ch as an error shows it: nothing for an empty name.
func channelValue(ch string) any {
	if ch == "" {
		return nil
	}
	return ch
}
