package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/redial-go/redial/adapters/sse"
)

// sseChunk is events of 256 bytes of data each, encoded once, about 64 KiB.
var sseChunk = func() []byte {
	ev := "data: " + strings.Repeat("a", msgSize) + "\n\n"
	return []byte(strings.Repeat(ev, 65536/len(ev)))
}()

// sseFeed is an event stream that sends 256-byte events as fast as the
// client reads them, in 64 KiB writes.
func sseFeed(tb testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for {
			if _, err := w.Write(sseChunk); err != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			default:
			}
		}
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/events"
}

// BenchmarkSSEEvents reads 256-byte events from a local stream: raw is
// github.com/tmaxmax/go-sse's Connection with a callback for every
// event (the library the adapter parses with); redial ranges over Events
// of an sse.New client with its defaults. One op is one event.
func BenchmarkSSEEvents(b *testing.B) {
	url := sseFeed(b)
	b.Run("raw", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		conn := (&gosse.Client{}).NewConnection(req)
		n := 0
		conn.SubscribeToAll(func(gosse.Event) {
			if n++; n == b.N {
				cancel()
			}
		})
		b.ReportAllocs()
		b.ResetTimer()
		_ = conn.Connect()
		b.StopTimer()
		if n < b.N {
			b.Fatalf("%d events of %d", n, b.N)
		}
	})
	b.Run("redial", func(b *testing.B) {
		c, err := sse.New(url, sse.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, c.Run)
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for _, err := range c.Events(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			if n++; n == b.N {
				break
			}
		}
		b.StopTimer()
	})
}
