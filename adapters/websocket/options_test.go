package websocket_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
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
	err := failsBeforeAHandshake(t, "Sec-WebSocket-Extensions", "permessage-deflate")
	assert.Contains(t, err.Error(), `BeforeConnect: websocket: Header "Sec-Websocket-Extensions": set by the handshake`)
}

// failsBeforeAHandshake runs a supervisor whose BeforeConnect sets the
// header name to value and returns Run's error once it gave up, having
// tried no handshake.
func failsBeforeAHandshake(t *testing.T, name, value string) error {
	t.Helper()
	srv := startServer(t, nil)
	o := testOptions()
	o.BeforeConnect = func(_ context.Context, _ *url.URL, h http.Header) error {
		h.Set(name, value)
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
	assert.Zero(t, srv.Handshakes.Load(), "no handshake was tried")
	return err
}

// A header value net/http would refuse to send (a control character other
// than tab) is an error at New, and from BeforeConnect a permanent one:
// before, coder's client failed every handshake before it was sent,
// retried forever. The value, a secret, is not shown.
func TestNewRefusesHeaderValuesNetHTTPRefuses(t *testing.T) {
	const want = `Header "X-Key": a value holds a control character other than tab, which net/http refuses in a header value`
	for _, v := range []string{"k3y\x01-s3cret", "k3y\x00", "k3y\r\nX-Evil: 1", "k3y\x7f"} {
		_, err := redialws.New("ws://h/x", redialws.Options{Header: http.Header{"X-Key": {"ok", v}}})
		assert.EqualError(t, err, "websocket: "+want)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
	_, err := redialws.New("ws://h/x", redialws.Options{Header: http.Header{"X-Key": {"a\tb"}}})
	assert.NoError(t, err, "a tab is allowed")

	err = failsBeforeAHandshake(t, "X-Key", "k3y\x01-s3cret")
	assert.Contains(t, err.Error(), "BeforeConnect: websocket: "+want)
	assert.NotContains(t, err.Error(), "s3cret")
}
