package websocket

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// connector dials a WebSocket URL and watches the connection with a ping
// heartbeat. It is a supervisor.Connector and supervisor.Watcher for
// *websocket.Conn. Its methods are safe for concurrent use; a supervisor
// calls them from its own goroutine.
type connector struct {
	o   Options
	set endpoint.Set // the url, then the Replicas: the endpoints
	// latest is the newest attempt's redactor, joined with set.Base:
	// BeforeConnect's credentials are masked too. Under mu.
	latest redact.Target
	// maxHint is the longest Retry-After honored (the supervisor's
	// MaxHint): a HandshakeError shows what is honored, not the raw value.
	maxHint time.Duration

	mu  sync.Mutex
	rng rand.PCG // spreads close hints; owned by this connector, under mu
}

// live maps every open connection of every connector of the package to
// its state, so that Messages, which has only the supervisor and the
// connection, can mask what the server sent with the right target's
// secrets. An entry lives from Connect to Close.
var live sync.Map // *websocket.Conn -> *connState

// connState is what the connector knows of one connection.
type connState struct {
	c        *connector    // its connector
	endpoint int           // its endpoint: the index in c.targets
	secrets  redact.Target // the attempt's redactor: the target's and BeforeConnect's secrets
	raw      net.Conn      // the TCP connection under it, for a bounded close
	broken   atomic.Bool   // found dead: Close skips the close handshake
	readDone chan struct{} // WriteOnly: closed when the adapter's reader ended
	readErr  error         // WriteOnly: why it ended; read after readDone
}

// newConnector checks url and o and returns a connector; New wraps one in
// a Supervisor. The url is checked first; a bad one or a bad option is an
// error naming it.
func newConnector(url string, o Options) (*connector, error) {
	set, err := endpoint.ParseSet("websocket", url, o.Replicas, schemes, o.PublicQuery, o.Header, o.Supervisor.Name)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := &connector{o: o, set: set, latest: set.Base, maxHint: cmp.Or(o.Supervisor.MaxHint, supervisor.DefaultMaxHint)}
	var seed [16]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand crashes the program rather)
	c.rng.Seed(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	return c, nil
}

// classify is the package's Classify with this connector's CloseHint,
// spread over [CloseHint, 1.5*CloseHint), on err made safe first: it is
// the first step of the supervisor's Classify, which sees every error of
// Connect, OnConnect, Watch and Invalidate.
func (c *connector) classify(err error) error {
	return classify(c.safe(err), c.spreadCloseHint, c.o.BeforeConnect != nil)
}

// secrets returns the redactor of the newest attempt.
func (c *connector) secrets() redact.Target {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest
}

// spreadCloseHint draws a wait from [CloseHint, 1.5*CloseHint).
func (c *connector) spreadCloseHint() time.Duration {
	d := c.o.CloseHint
	if d <= 1 {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return d + time.Duration(c.rng.Uint64()%uint64(d/2))
}

// Close closes conn: at once when it is known to be broken (the heartbeat
// failed, a read failed and the program called Invalidate), else with the
// close handshake (1000, normal closure), waiting at most CloseTimeout for
// the server's answer. In WriteOnly mode it returns only after the adapter's
// reader goroutine ended.
func (c *connector) Close(conn *websocket.Conn) error {
	st := stateOf(conn)
	live.Delete(conn)
	var err error
	if st == nil || st.broken.Load() {
		err = conn.CloseNow()
	} else {
		if st.raw != nil {
			_ = st.raw.SetDeadline(time.Now().Add(c.o.CloseTimeout))
		}
		err = conn.Close(websocket.StatusNormalClosure, "")
	}
	if st != nil && st.readDone != nil {
		<-st.readDone
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%s: %s", c.step("close", st), c.secrets().Text(err.Error()))
	}
	return nil
}

// stateOf returns conn's state, nil when no connector of the package has
// it open.
func stateOf(conn *websocket.Conn) *connState {
	if st, ok := live.Load(conn); ok {
		return st.(*connState)
	}
	return nil
}

// markBroken makes Close skip the close handshake.
func markBroken(conn *websocket.Conn) {
	if st := stateOf(conn); st != nil {
		st.broken.Store(true)
	}
}

// step names an attempt's or a connection's step in errors: "dial", or
// `dial "wss://b/feed"` when errors name the endpoint.
func (c *connector) step(what string, st *connState) string {
	if st == nil {
		return what
	}
	return c.set.Step(what, st.endpoint)
}

// replicas is the connector of several endpoints: the supervisor calls
// ConnectTo.
type replicas struct{ *connector }

// Endpoints returns the url and the Replicas, redacted.
func (r replicas) Endpoints() []string { return r.set.Shown() }

// ConnectTo makes one attempt on endpoint i.
func (r replicas) ConnectTo(ctx context.Context, i int) (*websocket.Conn, error) {
	return r.connectTo(ctx, i)
}
