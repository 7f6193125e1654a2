package websocket_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/conformance"
	"github.com/redial-go/redial/supervisor"
)

// The harness: conformance's WebSocket server; the program reads with
// Messages.
func TestConformance(t *testing.T) {
	const interval, timeout = 200 * time.Millisecond, time.Second
	conformance.Run(t, conformance.Harness{
		Pkg:   "websocket",
		Start: func(t testing.TB) conformance.Server { return conformance.StartWebSocket(t) },
		New: func(t testing.TB, srv conformance.Server, o conformance.Options) (conformance.Client, error) {
			url, header := conformance.Target(o, srv, "ws", "/feed")
			s, err := redialws.New(url, redialws.Options{
				Header:        header,
				BeforeConnect: conformance.BeforeConnect(o.BeforeConnect),
				PingInterval:  interval,
				PingTimeout:   timeout,
				Supervisor:    supervisor.Options[*websocket.Conn]{Settings: o.Settings, OnConnect: conformance.OnConnect[*websocket.Conn](o.OnConnect)},
			})
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		Streams: []conformance.Stream{
			{Name: "Messages", Greets: true, Range: func(ctx context.Context, c conformance.Client) iter.Seq2[any, error] {
				return conformance.Seq2(redialws.Messages(ctx, asSupervisor(c)))
			}},
			conformance.Connections(asSupervisor, readUntilBroken),
		},
		Bad: []conformance.Bad{
			{Field: "ReadLimit", New: func() error { _, err := redialws.New("ws://h/", redialws.Options{ReadLimit: -1}); return err }},
			{Field: "PingInterval", New: func() error { _, err := redialws.New("ws://h/", redialws.Options{PingInterval: -1}); return err }},
			{Field: "url", New: func() error { _, err := redialws.New("http://h/", redialws.Options{}); return err }},
		},
		Refusal:  "404",
		Silent:   supervisor.ErrSilent,
		Liveness: 2*interval + timeout,
		Known:    conformance.Known(nil),
	})
}

func asSupervisor(c conformance.Client) *supervisor.Supervisor[*websocket.Conn] {
	return c.(*supervisor.Supervisor[*websocket.Conn])
}

// readUntilBroken is a program's loop body over a connection: it reads
// until a read fails.
func readUntilBroken(ctx context.Context, c *websocket.Conn) error {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return err
		}
	}
}
