package websocket_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Options.CompressionMode offers permessage-deflate: a server that accepts
// it compresses what it sends (far fewer bytes on the wire), and messages
// flow both ways. The zero mode offers nothing, as coder/websocket's
// default does.
func TestCompressionMode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    websocket.CompressionMode
		deflate bool
	}{
		{"zero: disabled", 0, false},
		{"context takeover", websocket.CompressionContextTakeover, true},
		{"no context takeover", websocket.CompressionNoContextTakeover, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testkit.StartCompression(t, func(w http.ResponseWriter, r *http.Request) (*testkit.Peer, error) {
				c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionContextTakeover})
				if err != nil {
					return nil, err
				}
				c.SetReadLimit(1 << 20)
				return &testkit.Peer{
					Write: func(ctx context.Context, data []byte) error { return c.Write(ctx, websocket.MessageText, data) },
					Read:  func(ctx context.Context) ([]byte, error) { _, data, err := c.Read(ctx); return data, err },
					Drop:  func() { _ = c.CloseNow() },
				}, nil
			})
			o := testOptions()
			o.CompressionMode = tc.mode
			c := run(t, srv.URL("/feed"), o, false)
			srv.Assert(t, tc.deflate, func(ctx context.Context) (int, []byte, error) {
				for msg, err := range redialws.Messages(ctx, c.Supervisor) {
					return int(msg.Type), msg.Data, err
				}
				return 0, nil, ctx.Err()
			}, func(ctx context.Context, data []byte) error {
				conn, err := c.Conn(ctx)
				if err != nil {
					return err
				}
				return conn.Write(ctx, websocket.MessageText, data)
			})
			require.NoError(t, c.Stop())
		})
	}
}
