package websocket

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Connector dials a WebSocket URL and watches the connection with a ping
// heartbeat. It is a supervisor.Connector and supervisor.Watcher for
// *websocket.Conn. Its methods are safe for concurrent use; a supervisor
// calls them from its own goroutine.
type Connector struct {
	o      Options
	target target

	mu    sync.Mutex
	conns map[*websocket.Conn]*connState
	rng   rand.PCG // spreads close hints; owned by this Connector, under mu
}

// connState is what the Connector knows of one connection.
type connState struct {
	raw      net.Conn      // the TCP connection under it, for a bounded close
	broken   bool          // found dead: Close skips the close handshake
	readDone chan struct{} // WriteOnly: closed when the adapter's reader ended
	readErr  error         // WriteOnly: why it ended; read after readDone
}

// NewConnector checks o and returns a Connector; New wraps one in a
// Supervisor. Bad options are an error naming the field.
func NewConnector(o Options) (*Connector, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	t, err := parseTarget(o.URL)
	if err != nil {
		return nil, err
	}
	c := &Connector{o: o, target: t, conns: make(map[*websocket.Conn]*connState)}
	var seed [16]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand crashes the program rather)
	c.rng.Seed(binary.LittleEndian.Uint64(seed[:8]), binary.LittleEndian.Uint64(seed[8:]))
	return c, nil
}

// URL returns the URL with its credentials redacted.
func (c *Connector) URL() string { return c.target.redacted }

// Classify is the package's Classify with this Connector's CloseHint,
// spread over [CloseHint, 1.5*CloseHint).
func (c *Connector) Classify(err error) error { return classify(err, c.spreadCloseHint) }

// spreadCloseHint draws a wait from [CloseHint, 1.5*CloseHint).
func (c *Connector) spreadCloseHint() time.Duration {
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
func (c *Connector) Close(conn *websocket.Conn) error {
	c.mu.Lock()
	st := c.conns[conn]
	delete(c.conns, conn)
	c.mu.Unlock()
	var err error
	if st == nil || st.broken {
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
		return fmt.Errorf("close %q: %s", c.target.redacted, c.target.redact(err.Error()))
	}
	return nil
}

func (c *Connector) state(conn *websocket.Conn) *connState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns[conn]
}

// markBroken makes Close skip the close handshake.
func (c *Connector) markBroken(conn *websocket.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.conns[conn]; st != nil {
		st.broken = true
	}
}
