package gorilla_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Options.EnableCompression offers permessage-deflate (no context
// takeover, gorilla's only mode): a server that accepts it compresses what
// it sends (far fewer bytes on the wire), and messages flow both ways. The
// zero value offers nothing, as gorilla's Dialer does by default.
func TestEnableCompression(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		for _, enable := range []bool{false, true} {
			t.Run(map[bool]string{false: "off", true: "on"}[enable], func(t *testing.T) {
				srv := testkit.StartCompression(t, func(w http.ResponseWriter, r *http.Request) (*testkit.Peer, error) {
					p, err := im.accept(w, r, acceptOpts{compress: true})
					if err != nil {
						return nil, err
					}
					return &testkit.Peer{
						Write: func(ctx context.Context, data []byte) error { return p.write(ctx, websocket.TextMessage, data) },
						Read:  func(ctx context.Context) ([]byte, error) { _, data, err := p.read(ctx); return data, err },
						Drop:  p.drop,
					}, nil
				})
				o := testOptions()
				o.EnableCompression = enable
				c := run(t, srv.URL("/feed"), o, false)
				srv.Assert(t, enable, func(ctx context.Context) (int, []byte, error) {
					for msg, err := range gorilla.Messages(ctx, c.Supervisor) {
						return msg.Type, msg.Data, err
					}
					return 0, nil, ctx.Err()
				}, func(ctx context.Context, data []byte) error {
					conn, err := c.Conn(ctx)
					if err != nil {
						return err
					}
					return conn.WriteMessage(websocket.TextMessage, data)
				})
				require.NoError(t, c.Stop())
			})
		}
	})
}
