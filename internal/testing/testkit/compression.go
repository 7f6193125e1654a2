package testkit

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Big is the message of the compression checks: 96 KB, very repetitive.
var Big = bytes.Repeat([]byte("price 100.25 volume 42; "), 4000)

// Peer is the server's end of one WebSocket connection, over any library.
type Peer struct {
	Write func(ctx context.Context, data []byte) error // a text message
	Read  func(ctx context.Context) ([]byte, error)
	Drop  func()
}

// Compression is the server half of the WebSocket adapters' compression
// checks: on each connection it sends Big and reads the client's echo,
// and it records what the client offered and the bytes it wrote.
type Compression struct {
	*HTTPServer[*Peer]
	offered, answered chan string
	echoed            chan []byte
}

// StartCompression serves accept, which upgrades a request, accepting
// permessage-deflate.
func StartCompression(t testing.TB, accept func(w http.ResponseWriter, r *http.Request) (*Peer, error)) *Compression {
	s := &Compression{offered: make(chan string, 1), answered: make(chan string, 1), echoed: make(chan []byte, 1)}
	s.HTTPServer = StartHTTP(t, func(p *Peer) { p.Drop() }, func(w http.ResponseWriter, r *http.Request) {
		s.offered <- r.Header.Get("Sec-WebSocket-Extensions")
		p, err := accept(w, r)
		if err != nil || !s.Track(p) {
			return
		}
		defer s.Forget(p)
		s.answered <- w.Header().Get("Sec-WebSocket-Extensions") // gorilla's Upgrader writes its answer past w.Header
		if p.Write(r.Context(), Big) != nil {
			return
		}
		msg, err := p.Read(r.Context())
		if err != nil {
			return
		}
		s.echoed <- msg
		_, _ = p.Read(r.Context()) // until the client leaves
	})
	return s
}

// Assert checks a client of s that offered permessage-deflate or not
// (deflate): recv returns the type and data of the first message it read,
// send writes a text message. Either way Big arrives whole both ways; the
// server wrote a tenth of it with deflate, all of it without.
func (s *Compression) Assert(t testing.TB, deflate bool, recv func(ctx context.Context) (int, []byte, error), send func(ctx context.Context, data []byte) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	typ, data, err := recv(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, typ, "a text message")
	assert.Equal(t, Big, data, "the message arrived whole")
	require.NoError(t, send(ctx, Big))
	select {
	case msg := <-s.echoed:
		assert.Equal(t, Big, msg, "the client's message arrived whole")
	case <-ctx.Done():
		t.Fatal("the server got no message")
	}
	// Read only now: the client can read a frame before the server's
	// Write that sent it has returned and been counted; once the server
	// read the echo, its write is long done.
	onWire := s.Written.Load()
	ext, resp := <-s.offered, <-s.answered
	t.Logf("offered %q, answered %q; the server wrote %d bytes for a %d-byte message", ext, resp, onWire, len(Big))
	if deflate {
		assert.Contains(t, ext, "permessage-deflate", "the client offered it")
		assert.Less(t, onWire, int64(len(Big)/10), "the server accepted it: the message was compressed")
	} else {
		assert.Empty(t, ext, "nothing offered")
		assert.Empty(t, resp)
		assert.Greater(t, onWire, int64(len(Big)), "sent as it is")
	}
}
