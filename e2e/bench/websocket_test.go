package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/supervisor"
)

// coderFeed is a github.com/coder/websocket server that writes 256-byte
// binary messages, one Write each, as fast as the client reads them.
func coderFeed(tb testing.TB) string {
	msg := make([]byte, msgSize)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := ws.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := c.CloseRead(r.Context()) // answers the heartbeat's pings
		for c.Write(ctx, ws.MessageBinary, msg) == nil {
		}
	}))
	tb.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/feed"
}

// BenchmarkWebSocketMessages reads 256-byte messages from a local server,
// one op per message, with a cancellable ctx everywhere:
//   - raw: conn.Read(ctx) on a connection from websocket.Dial (coder's);
//   - redial: a loop over websocket.Messages of a websocket.New
//     supervisor with its defaults (heartbeat, read limit);
//   - conn: conn.Read(ctx) on the connection that supervisor dialed,
//     without the iterator: what Connect set up, alone.
//
// Two servers: frames writes frames encoded once, in 64 KiB writes, so
// that nearly all the time and every allocation are the client's; coder is
// a coder/websocket server writing one message per Write.
func BenchmarkWebSocketMessages(b *testing.B) {
	for _, feed := range []struct {
		name string
		url  func(testing.TB) string
	}{{"frames", func(tb testing.TB) string { return newWSFeed(tb).url() }}, {"coder", coderFeed}} {
		b.Run(feed.name, func(b *testing.B) {
			url := feed.url(b)
			b.Run("raw", func(b *testing.B) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				conn, _, err := ws.Dial(ctx, url, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.CloseNow()
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := conn.Read(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("redial", func(b *testing.B) {
				s, ctx := runWS(b, url)
				b.ReportAllocs()
				b.ResetTimer()
				n := 0
				for _, err := range websocket.Messages(ctx, s) {
					if err != nil {
						b.Fatal(err)
					}
					if n++; n == b.N {
						break
					}
				}
				b.StopTimer()
			})
			b.Run("conn", func(b *testing.B) {
				s, ctx := runWS(b, url)
				conn, err := s.Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := conn.Read(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// runWS runs a websocket.New supervisor of url until the benchmark ends
// and waits for its first connection; ctx is for its reads.
func runWS(b *testing.B, url string) (*supervisor.Supervisor[*ws.Conn], context.Context) {
	s, err := websocket.New(url, websocket.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := run(b, s.Run)
	if _, err := s.Conn(ctx); err != nil {
		b.Fatal(err)
	}
	return s, ctx
}
