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

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/supervisor"
)

// DefaultBuffer is how many notifications a Listener holds by default.
const DefaultBuffer = 64

// ListenerOptions configures NewListener. The zero value of every field
// means its default; NewListener copies it.
type ListenerOptions struct {
	// Channels are LISTENed on every connect; Listen adds more. Names are
	// used as written (quoted identifiers): pg_notify('Orders', ...)
	// reaches "Orders" only.
	Channels []string
	// PingInterval is how long the connection may stay silent (no
	// notification) before the Listener pings; 0 means DefaultPingInterval
	// (5s). PingTimeout bounds the ping and, unless the DSN sets
	// connect_timeout, each connect (with Supervisor.ConnectTimeout if
	// shorter); 0 means DefaultPingTimeout (3s). A LISTEN connection only
	// reads: without pings a dead path would look alive until TCP gave up.
	PingInterval, PingTimeout time.Duration
	// Buffer is how many notifications wait for the program; 0 means
	// DefaultBuffer (64). When it is full the Listener stops reading and
	// the server queues them.
	Buffer int
	// Configure, when set, is called once by NewListener with the parsed
	// config. Its BuildContextWatcherHandler is then replaced: the
	// Listener interrupts a wait with a read deadline, never a cancel
	// request that could hit a LISTEN.
	Configure func(*pgx.ConnConfig)
	// BeforeConnect is as ConnOptions.BeforeConnect.
	BeforeConnect func(ctx context.Context, cfg *pgconn.Config) error
	// TooManyConnectionsHint is the shortest wait after a 53300 refusal;
	// 0 means DefaultTooManyConnectionsHint (5s).
	TooManyConnectionsHint time.Duration
	// Supervisor configures the supervisor; an empty Name becomes
	// "postgres listener " and the redacted target. The connection stays
	// private, so there is no OnConnect: the Listener LISTENs there.
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
// re-LISTENing after every reconnect. Notifications received before Run
// returned can still be read. Its methods are safe for concurrent use.
type Listener struct {
	lifecycle[*listenerConn]
	sup                       *supervisor.Supervisor[*listenerConn]
	items                     chan item // the bounded buffer, in the server's order
	pingInterval, pingTimeout time.Duration
	t                         target

	mu        sync.Mutex
	channels  []string           // LISTENed on every connect, in the order added
	pending   []*listenRequest   // Listen calls the live connection has not served yet
	interrupt context.CancelFunc // ends Watch's wait for a notification; nil outside it
	wake      chan struct{}      // capacity 1: a Listen call is pending

	// Owned by the supervisor's calls (OnConnect, Watch), one at a time.
	owed   bool      // an ErrMissed error is owed to the program
	lost   error     // why the connection was lost, for that error
	pinged time.Time // the last ping's, or the connect's
}

// listenerConn is one connection of a Listener, which only the Listener
// uses.
type listenerConn struct{ conn *pgx.Conn }

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

// NewListener returns a Listener on dsn (see NewConn). Defaults: no
// Channels yet, PingInterval 5s, PingTimeout 3s (a silent path is found
// within 8s), Buffer 64, TooManyConnectionsHint 5s, the supervisor's own,
// Name "postgres listener " and the redacted target.
func NewListener(dsn string, o ListenerOptions) (*Listener, error) {
	if err := checkDSN(dsn); err != nil {
		return nil, err
	}
	if o.Buffer < 0 {
		return nil, opterr.New(pkg, "Buffer", o.Buffer, "negative")
	}
	if err := pingDefaults(&o.PingInterval, &o.PingTimeout); err != nil {
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
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	l.t = newTarget("listener", dsn, &cfg.Config, hint, o.BeforeConnect != nil)
	timeout := min(connectTimeout(o.Supervisor.ConnectTimeout), o.PingTimeout)
	c := &listenConnector{connector: newConnector(cfg, l.t, o.BeforeConnect, timeout), l: l}
	l.sup, err = newSupervisor(l.t, nil, c, withOnConnect(o.Supervisor, l.onConnect))
	if err != nil {
		return nil, err
	}
	l.lifecycle = adapt.Lift(l.sup)
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
