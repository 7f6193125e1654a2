package gorilla_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// peer is the server's end of one WebSocket connection, over either
// library: the adapter is tested against gorilla/websocket's server and
// coder/websocket's (interoperability). Message types are the same
// numbers in both (1 text, 2 binary).
type peer interface {
	// read returns the next data message, handling control frames.
	read(ctx context.Context) (int, []byte, error)
	write(ctx context.Context, typ int, data []byte) error
	// close makes the close handshake with code and reason: it writes the
	// close frame and waits (at most a second) for the client's answer.
	close(code int, reason string)
	// drop closes the socket without a close frame, like a killed process.
	drop()
}

// acceptOpts changes how a server accepts.
type acceptOpts struct {
	compress bool   // accept permessage-deflate (no context takeover)
	noPong   bool   // never answer a ping: a peer the heartbeat finds silent
	onPing   func() // called on every ping received
}

// impl is one server library.
type impl struct {
	name   string
	accept func(w http.ResponseWriter, r *http.Request, o acceptOpts) (peer, error)
	// closeCode reads the close code from a read error of its peers, -1
	// when there is none.
	closeCode func(err error) int
}

var impls = []impl{
	{"gorilla server", acceptGorilla, func(err error) int {
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		return -1
	}},
	{"coder server", acceptCoder, func(err error) int { return int(coder.CloseStatus(err)) }},
}

// eachImpl runs f once per server library.
func eachImpl(t *testing.T, f func(t *testing.T, im impl)) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) { f(t, im) })
	}
}

// gorillaPeer is a gorilla/websocket server connection. Its handler is
// its only reader and writer (gorilla allows one of each); close and
// drop may come from another goroutine (WriteControl and Close are safe).
type gorillaPeer struct{ c *websocket.Conn }

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func acceptGorilla(w http.ResponseWriter, r *http.Request, o acceptOpts) (peer, error) {
	u := upgrader
	u.EnableCompression = o.compress
	c, err := u.Upgrade(w, r, nil)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(4 << 20)
	if o.noPong || o.onPing != nil {
		c.SetPingHandler(func(data string) error {
			if o.onPing != nil {
				o.onPing()
			}
			if o.noPong {
				return nil
			}
			return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		})
	}
	return gorillaPeer{c}, nil
}

func (p gorillaPeer) read(context.Context) (int, []byte, error) { return p.c.ReadMessage() }

func (p gorillaPeer) write(_ context.Context, typ int, data []byte) error {
	return p.c.WriteMessage(typ, data)
}

func (p gorillaPeer) close(code int, reason string) {
	_ = p.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	_ = p.c.SetReadDeadline(time.Now().Add(time.Second))
	for {
		if _, _, err := p.c.NextReader(); err != nil {
			break // the client's close frame, or the deadline
		}
	}
	_ = p.c.Close()
}

func (p gorillaPeer) drop() { _ = p.c.Close() }

// coderPeer is a coder/websocket server connection.
type coderPeer struct{ c *coder.Conn }

func acceptCoder(w http.ResponseWriter, r *http.Request, o acceptOpts) (peer, error) {
	ao := &coder.AcceptOptions{}
	if o.compress {
		ao.CompressionMode = coder.CompressionNoContextTakeover
	}
	if o.noPong || o.onPing != nil {
		ao.OnPingReceived = func(context.Context, []byte) bool {
			if o.onPing != nil {
				o.onPing()
			}
			return !o.noPong
		}
	}
	c, err := coder.Accept(w, r, ao)
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(4 << 20)
	return coderPeer{c}, nil
}

func (p coderPeer) read(ctx context.Context) (int, []byte, error) {
	typ, data, err := p.c.Read(ctx)
	return int(typ), data, err
}

func (p coderPeer) write(ctx context.Context, typ int, data []byte) error {
	return p.c.Write(ctx, coder.MessageType(typ), data)
}

func (p coderPeer) close(code int, reason string) { _ = p.c.Close(coder.StatusCode(code), reason) }

func (p coderPeer) drop() { _ = p.c.CloseNow() }

// server is a real WebSocket server on 127.0.0.1 over one library, a
// testkit.HTTPServer: stop and restart keep its address, as a restarted
// process would.
type server struct {
	*testkit.HTTPServer[peer]
	im impl
}

// startServer serves handler (nil: feed, an accepting server that records
// subscribe messages) until the test ends.
func startServer(t *testing.T, im impl, handler func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{im: im}
	if handler == nil {
		handler = func(s *server, w http.ResponseWriter, r *http.Request) {
			if p := s.accept(w, r, acceptOpts{}); p != nil {
				s.feed(r.Context(), p)
			}
		}
	}
	s.HTTPServer = testkit.StartHTTP(t, peer.drop, func(w http.ResponseWriter, r *http.Request) { handler(s, w, r) })
	return s
}

// feedWith is testkit.FeedWith with gorilla's server.
func feedWith(t *testing.T, first func(http.ResponseWriter, *http.Request) bool) *testkit.HTTPServer[peer] {
	return startServer(t, impls[0], func(s *server, w http.ResponseWriter, r *http.Request) {
		if first(w, r) {
			return
		}
		if p := s.accept(w, r, acceptOpts{}); p != nil {
			s.feed(r.Context(), p)
		}
	}).HTTPServer
}

func (s *server) url(path string) string { return s.URL(path) }

// accept upgrades r and tracks the connection so that Stop can drop it.
func (s *server) accept(w http.ResponseWriter, r *http.Request, o acceptOpts) peer {
	p, err := s.im.accept(w, r, o)
	if err != nil || !s.Track(p) {
		return nil
	}
	return p
}

// feed reads until the connection ends, recording "subscribe ..." messages.
func (s *server) feed(ctx context.Context, p peer) {
	defer s.Forget(p)
	for {
		_, msg, err := p.read(ctx)
		if err != nil {
			return
		}
		s.Received(msg)
	}
}

// httpServer is a plain HTTP server (no WebSocket library: a refusing
// server), on impls[0]'s harness.
func httpServer(t *testing.T, h func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	return startServer(t, impls[0], h)
}
