package conformance

import (
	"context"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// StartWebSocket starts the WebSocket server of the harnesses of
// adapters/websocket and adapters/gorilla (gorilla/websocket's Upgrader on
// an HTTPServer). It greets every connection with a text message "hello"
// and reads what the client sends. CloseConns sends a close frame 1011 whose
// reason echoes the handshake; the client's own close frame is answered
// with one whose reason echoes it too.
func StartWebSocket(t testing.TB) *HTTPServer {
	s := &HTTPServer{}
	s.Handle = func(w http.ResponseWriter, r *http.Request, closing <-chan struct{}) {
		var up websocket.Upgrader
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		closeWith := func(code int) {
			reason := s.Echo.Short(r)
			s.Echo.Sent(reason)
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		}
		c.SetCloseHandler(func(int, string) error { closeWith(websocket.CloseNormalClosure); return nil })
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-closing:
				closeWith(websocket.CloseInternalServerErr)
			case <-done:
			}
		}()
		if err := c.WriteMessage(websocket.TextMessage, []byte("hello")); err != nil {
			return
		}
		for {
			if _, _, err := c.NextReader(); err != nil {
				return
			}
		}
	}
	return StartHTTP(t, s)
}

// WebSocketTarget is what a WebSocket adapter's harness passes to its
// constructor for one case: the url and the options (Read unused).
type WebSocketTarget struct {
	URL string
	testkit.WSOptions
}

// WebSocketHarness is the harness of a WebSocket adapter (websocket,
// gorilla) whose constructor is newClient: StartWebSocket's server, the
// program reading with messages and with a Connections loop whose body
// calls readOne (one message) until it fails; its bad constructions are a
// negative ReadLimit and PingInterval, an http:// url and a header the
// handshake sets.
func WebSocketHarness[C comparable, M any](
	pkg string,
	newClient func(w WebSocketTarget, onConnect func(context.Context, C) error) (*supervisor.Supervisor[C], error),
	messages func(context.Context, *supervisor.Supervisor[C]) iter.Seq2[M, error],
	readOne func(context.Context, C) error,
) redialtest.Harness {
	const interval, timeout = 200 * time.Millisecond, time.Second
	as := func(c redialtest.Client) *supervisor.Supervisor[C] { return c.(*supervisor.Supervisor[C]) }
	return redialtest.Harness{
		Pkg:   pkg,
		Start: func(t testing.TB) redialtest.Server { return StartWebSocket(t) },
		New: func(_ testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			u, header := Target(addr, o, "ws", "/feed")
			return newClient(WebSocketTarget{URL: u, WSOptions: testkit.WSOptions{
				Header: header, BeforeConnect: BeforeConnect(o.BeforeConnect),
				PingInterval: interval, PingTimeout: timeout, Settings: o.Settings,
			}}, redialtest.OnConnect[C](o.OnConnect))
		},
		Streams: []redialtest.Stream{
			{Name: "Messages", Greets: true, Range: func(ctx context.Context, c redialtest.Client) iter.Seq2[any, error] {
				return redialtest.Seq2(messages(ctx, as(c)))
			}},
			redialtest.Connections(as, func(ctx context.Context, c C) error {
				for {
					if err := readOne(ctx, c); err != nil {
						return err
					}
				}
			}),
		},
		Bad: []redialtest.Bad{
			badWebSocket("ReadLimit", newClient, WebSocketTarget{"ws://h/", testkit.WSOptions{ReadLimit: -1}}),
			badWebSocket("PingInterval", newClient, WebSocketTarget{"ws://h/", testkit.WSOptions{PingInterval: -1}}),
			badWebSocket("url", newClient, WebSocketTarget{URL: "http://h/"}),
			badWebSocket("Header", newClient, WebSocketTarget{"ws://h/", testkit.WSOptions{Header: http.Header{"Sec-Websocket-Extensions": {"x"}}}}),
		},
		Refusal:   "404",
		Hook:      "BeforeConnect",
		OnConnect: true,
		Secrets:   true,
		Silent:    supervisor.ErrSilent,
		Liveness:  2*interval + timeout,
	}
}

func badWebSocket[C comparable](field string, newClient func(WebSocketTarget, func(context.Context, C) error) (*supervisor.Supervisor[C], error), w WebSocketTarget) redialtest.Bad {
	return redialtest.Bad{Field: field, New: func() error { _, err := newClient(w, nil); return err }}
}
