package gorilla

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/endpoint"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// connector dials a WebSocket URL with gorilla/websocket's Dialer and
// watches the connection with a ping heartbeat. It is a
// supervisor.Connector and supervisor.Watcher for *websocket.Conn. Its
// methods are safe for concurrent use; a supervisor calls them from its
// own goroutine.
type connector struct {
	o   Options
	set endpoint.Set // the url, then the Replicas: the endpoints
	// fixed is every attempt's request on each endpoint when there is no
	// BeforeConnect.
	fixed []request
	// maxHint is the longest Retry-After honored (the supervisor's
	// MaxHint): a HandshakeError shows what is honored, not the raw value.
	maxHint time.Duration

	mu sync.Mutex
	// latest is the newest attempt's redactor, joined with set.Base:
	// BeforeConnect's credentials are masked too. The supervisor's
	// Classify sees errors of the connection that is live or of the
	// attempt under way, the newest. Under mu.
	latest redact.Target
	rng    rand.PCG // spreads close hints; under mu
}

// request is what one attempt dials: the url without userinfo (gorilla's
// Dialer refuses it; it is sent as Basic authorization, as net/http
// does), the header, and the redactor that knows both and base.
type request struct {
	url     string
	header  http.Header
	secrets redact.Target
}

// live maps every open connection of every connector of the package to
// its state, so that Messages, which has only the supervisor and the
// connection, finds the connection's redactor, deadline and reader slot. An
// entry lives from Connect to Close.
var live sync.Map // *websocket.Conn -> *connState

// connState is what the connector knows of one connection. The reader
// (Messages or the WriteOnly reader) and the supervisor's goroutine
// (Watch, Close) share it.
type connState struct {
	endpoint int           // its endpoint: the index in the connector's targets
	secrets  redact.Target // the redactor of the attempt that made it
	within   time.Duration // PingInterval + PingTimeout: the read deadline after a pong or message (see heardFrom)

	heard  atomic.Int64  // UnixNano of the last pong or message read
	ask    atomic.Bool   // a ping was written: the next message read is to be recorded (see heardFrom)
	pong   chan struct{} // a pong came (buffered, one): wakes the heartbeat
	closed atomic.Pointer[websocket.CloseError]

	readers   atomic.Int32  // 1 while a reader of this package owns the connection
	readEnded chan struct{} // closed when a reader of this package saw a read fail
	endOnce   sync.Once

	broken  atomic.Bool           // found dead: Close skips the close frame
	why     atomic.Pointer[error] // why it was found dead (the heartbeat's error), for the reader
	leaving atomic.Bool           // Close is saying goodbye (1000): the reader's failure is no failure

	readDone chan struct{} // WriteOnly: closed when the adapter's reader ended
	readErr  error         // WriteOnly: why it ended; read after readDone
}

// newConnector checks url and o and returns a connector; New wraps one in
// a Supervisor. The url is checked first; a bad one or a bad option is an
// error naming it.
func newConnector(url string, o Options) (*connector, error) {
	set, err := endpoint.ParseSet("gorilla", url, o.Replicas, schemes, o.PublicQuery, o.Header, o.Supervisor.Name)
	if err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	c := &connector{o: o, set: set, latest: set.Base, maxHint: cmp.Or(o.Supervisor.MaxHint, supervisor.DefaultMaxHint)}
	if o.BeforeConnect == nil {
		for _, e := range set.URLs {
			u := *e.Parsed
			c.fixed = append(c.fixed, c.request(&u, o.Header.Clone(), set.Base))
		}
	}
	var seed [16]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand crashes the program rather)
	c.rng.Seed(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	return c, nil
}

// request builds an attempt's request from u and header, which it may
// change: u's userinfo becomes a Basic Authorization header unless header
// has one. Its redactor is secrets with that header's value.
func (c *connector) request(u *url.URL, header http.Header, secrets redact.Target) request {
	if header == nil {
		header = http.Header{}
	}
	if u.User != nil && header.Get("Authorization") == "" {
		p, _ := u.User.Password()
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+p)))
		secrets = secrets.With(endpoint.HeaderValues(http.Header{"Authorization": header["Authorization"]})...)
	}
	bare := *u
	bare.User = nil
	return request{url: bare.String(), header: header, secrets: secrets}
}

// classify is the package's Classify with this connector's CloseHint,
// spread over [CloseHint, 1.5*CloseHint), and BeforeConnect, on err made
// safe first: it is the first step of the supervisor's Classify, which
// sees every error of Connect, OnConnect, Watch and Invalidate.
func (c *connector) classify(err error) error {
	return classify(safeWith(c.secrets(), err), c.spreadCloseHint, c.o.BeforeConnect != nil)
}

// secrets returns the redactor of the newest attempt.
func (c *connector) secrets() redact.Target {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest
}

// setLatest makes tg the newest attempt's redactor.
func (c *connector) setLatest(tg redact.Target) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.latest = tg
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
// failed, a read failed and the reader called Invalidate), else with a
// close frame (1000, normal closure) written with WriteControl within
// CloseTimeout; when a reader of this package reads conn, Close then waits
// for it to see the server's answer, at most until CloseTimeout has
// passed, before it drops the connection. (Close never reads itself:
// gorilla/websocket allows one reader, and it is the program's.) In
// WriteOnly mode it returns only after the adapter's reader ended.
func (c *connector) Close(conn *websocket.Conn) error {
	st := stateOf(conn)
	live.Delete(conn)
	if st != nil && !st.broken.Load() {
		st.leaving.Store(true)
		deadline := time.Now().Add(c.o.CloseTimeout)
		err := conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), deadline)
		if err == nil && st.readers.Load() > 0 {
			t := time.NewTimer(time.Until(deadline))
			select {
			case <-st.readEnded:
			case <-t.C:
			}
			t.Stop()
		}
	}
	err := conn.Close()
	if st != nil && st.readDone != nil {
		<-st.readDone
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		tg := c.set.Base
		if st != nil {
			tg = st.secrets
		}
		return fmt.Errorf("%s: %s", c.step("close", st), tg.Text(err.Error()))
	}
	return nil
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

// stateOf returns conn's state, nil when no connector of the package has
// it open.
func stateOf(conn *websocket.Conn) *connState {
	if st, ok := live.Load(conn); ok {
		return st.(*connState)
	}
	return nil
}

// fail marks the connection broken, for why: Close skips the close frame,
// and a reader whose read fails because of it yields why.
func (st *connState) fail(why error) {
	if why != nil {
		st.why.Store(&why)
	}
	st.broken.Store(true)
}

// endRead records that a reader of this package saw a read fail.
func (st *connState) endRead() { st.endOnce.Do(func() { close(st.readEnded) }) }

// onPong is the connection's pong handler: it records the pong, wakes the
// heartbeat and moves the read deadline to within from now. It runs on the
// reader's goroutine, inside its read.
func (st *connState) onPong(conn *websocket.Conn) func(string) error {
	return func(string) error {
		st.heardFrom(conn, time.Now())
		select {
		case st.pong <- struct{}{}:
		default:
		}
		return nil
	}
}

// heardFrom records that the peer was heard at now (a pong, a message
// read after a ping, the handshake) and moves the read deadline to within
// from then. It runs on the reader's goroutine (a pong handler runs inside
// the read).
//
// A message is recorded only when the heartbeat asks (st.ask, set as it
// writes a ping): a clock reading and a deadline moved per message cost
// more than the rest of reading a small one (BENCHMARKS.md, "The message
// and call paths"), and what the heartbeat needs to know is whether
// anything came after its ping. The deadline then stays at least within
// after the first message or pong that followed each ping, which a stream
// that flows, or a peer that answers pings, keeps ahead of.
func (st *connState) heardFrom(conn *websocket.Conn, now time.Time) {
	st.heard.Store(now.UnixNano())
	_ = conn.SetReadDeadline(now.Add(st.within))
}

// onClose wraps the connection's close handler: it records the server's
// close frame, so that the heartbeat reports it (with its code, for
// Classify) when a program's own read loop saw it and did not say so.
func (st *connState) onClose(next func(int, string) error) func(int, string) error {
	return func(code int, text string) error {
		st.closed.Store(&websocket.CloseError{Code: code, Text: text})
		return next(code, text)
	}
}
