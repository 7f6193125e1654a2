package websocket_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
)

// Run's ctx ends by deadline or with a cause: the connection is healthy, so
// it should still be closed with 1000, as when ctx is plainly cancelled.
func TestStopWithDeadlineOrCauseClosesPolitely(t *testing.T) {
	for name, mk := range map[string]func() (context.Context, func()){
		"cancel": func() (context.Context, func()) { ctx, c := context.WithCancel(context.Background()); return ctx, c },
		"cause": func() (context.Context, func()) {
			ctx, c := context.WithCancelCause(context.Background())
			return ctx, func() { c(errors.New("shutting down")) }
		},
		"deadline": func() (context.Context, func()) {
			ctx, c := context.WithDeadline(context.Background(), time.Now().Add(time.Hour))
			_ = c
			ctx2, c2 := context.WithTimeout(ctx, 400*time.Millisecond)
			return ctx2, func() { <-ctx2.Done(); c2(); c() }
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := make(chan websocket.StatusCode, 1)
			srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
				c := s.accept(w, r)
				if c == nil {
					return
				}
				defer s.Forget(c)
				_, _, err := c.Read(r.Context())
				got <- websocket.CloseStatus(err)
			})
			s, err := redialws.New(srv.url("/feed"), testOptions())
			require.NoError(t, err)
			ctx, stop := mk()
			readCtx, cancelRead := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			readDone := make(chan struct{})
			go func() {
				defer close(readDone)
				for range redialws.Messages(readCtx, s) {
				}
			}()
			_, err = s.Conn(context.Background())
			require.NoError(t, err)
			stop()
			require.NoError(t, <-done)
			cancelRead()
			<-readDone
			select {
			case code := <-got:
				assert.Equal(t, websocket.StatusNormalClosure, code, "server saw %v", code)
			case <-time.After(5 * time.Second):
				t.Fatal("the server saw no close")
			}
		})
	}
}
