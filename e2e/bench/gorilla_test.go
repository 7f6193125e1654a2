package bench

import (
	"testing"

	gws "github.com/gorilla/websocket"

	"github.com/redial-go/redial/adapters/gorilla"
)

// BenchmarkGorillaMessages reads 256-byte messages from the frames
// server: raw is conn.ReadMessage on a connection from gorilla's
// DefaultDialer (gorilla's reads take no ctx); redial ranges over
// gorilla.Messages of a gorilla.New supervisor with its defaults. One op
// is one message.
func BenchmarkGorillaMessages(b *testing.B) {
	feed := newWSFeed(b)
	b.Run("raw", func(b *testing.B) {
		conn, _, err := gws.DefaultDialer.Dial(feed.url(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := conn.ReadMessage(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redial", func(b *testing.B) {
		s, err := gorilla.New(feed.url(), gorilla.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ctx := run(b, s.Run)
		if _, err := s.Conn(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for _, err := range gorilla.Messages(ctx, s) {
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
