package websocket_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The headers the handshake sets itself are refused, at New and from
// BeforeConnect, as gorilla's Dialer refuses them: set, they would break
// every handshake.
func TestNewRefusesHandshakeHeaders(t *testing.T) {
	testkit.AssertRefusesHandshakeHeaders(t, "websocket", func(h http.Header) error {
		_, err := redialws.New("ws://h/x", redialws.Options{Header: h})
		return err
	})
	srv := startServer(t, nil)
	o := testOptions()
	o.BeforeConnect = func(_ context.Context, _ *url.URL, h http.Header) error {
		h.Set("Sec-WebSocket-Extensions", "permessage-deflate")
		return nil
	}
	c := run(t, srv.url("/feed"), o, false)
	select {
	case <-c.Ended:
	case <-time.After(10 * time.Second):
		t.Fatalf("still trying after %d handshakes", srv.Handshakes.Load())
	}
	err := c.Stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Contains(t, err.Error(), `BeforeConnect: websocket: Header "Sec-Websocket-Extensions": set by the handshake`)
	assert.Zero(t, srv.Handshakes.Load(), "no handshake was tried")
}
