package admit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gws "github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/admit"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Handler goes in front of coder/websocket's Accept, gorilla's Upgrade and
// an SSE handler alike: four redial clients of the matching adapter at
// one a second, the last one sent away with a 503 and back at its slot.
func TestHandlerInFrontOfEachServer(t *testing.T) {
	upgrader := gws.Upgrader{}
	for _, tc := range []struct {
		name  string
		serve http.HandlerFunc
		start func(t *testing.T, url string) testkit.Subscriber
	}{
		{"coder/websocket", func(w http.ResponseWriter, r *http.Request) {
			if c, err := ws.Accept(w, r, nil); err == nil {
				_, _, _ = c.Read(r.Context())
				c.CloseNow()
			}
		}, func(t *testing.T, url string) testkit.Subscriber {
			s, err := websocket.New("ws"+url[4:], websocket.Options{})
			require.NoError(t, err)
			return testkit.Start(t, s, websocket.Messages)
		}},
		{"gorilla", func(w http.ResponseWriter, r *http.Request) {
			if c, err := upgrader.Upgrade(w, r, nil); err == nil {
				_, _, _ = c.ReadMessage()
				c.Close()
			}
		}, func(t *testing.T, url string) testkit.Subscriber {
			s, err := gorilla.New("ws"+url[4:], gorilla.Options{})
			require.NoError(t, err)
			return testkit.Start(t, s, gorilla.Messages)
		}},
		{"sse", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(": hello\n\n"))
			_ = http.NewResponseController(w).Flush()
			<-r.Context().Done()
		}, func(t *testing.T, url string) testkit.Subscriber {
			c, err := sse.New(url, sse.Options{})
			require.NoError(t, err)
			testkit.Run(t, c)
			go func() {
				for range c.Events(context.Background()) { // ends at Stopped
				}
			}()
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := admit.New(admit.Config{Rate: 1})
			require.NoError(t, err)
			var refused atomic.Int32
			planned := p.Handler(tc.serve)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sw := &status{ResponseWriter: w}
				planned.ServeHTTP(sw, r)
				if sw.code == http.StatusServiceUnavailable {
					refused.Add(1)
				}
			}))
			t.Cleanup(srv.Close)
			var clients []testkit.Subscriber
			for range 4 { // at 0, held 1 s and 2 s, and one sent to its slot at 3 s
				clients = append(clients, tc.start(t, srv.URL))
			}
			for _, c := range clients {
				testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.Connected(1))
			}
			assert.Positive(t, refused.Load(), "one was sent to its slot")
		})
	}
}
