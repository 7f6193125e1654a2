package websocket_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testkit"
)

// Messages allocates no more per message than conn.Read does. The server
// has written every message before the count begins (they wait in the
// socket buffers), so that only the client's allocations are counted.
func TestMessagesAllocatesAsReadDoes(t *testing.T) {
	const n = 2000
	sent := make(chan struct{})
	srv := startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.Forget(c)
		for { // "send N": N messages
			_, req, err := c.Read(r.Context())
			if err != nil {
				return
			}
			k, _ := strconv.Atoi(strings.TrimPrefix(string(req), "send "))
			for i := range k {
				if c.Write(r.Context(), websocket.MessageBinary, []byte(fmt.Sprintf("price %08d", i))) != nil {
					return
				}
			}
			sent <- struct{}{}
		}
	})
	c := run(t, srv.url("/feed"), testOptions(), false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	fill := func() {
		require.NoError(t, conn.Write(ctx, websocket.MessageText, []byte("send "+strconv.Itoa(n))))
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatal("the server did not send")
		}
	}
	byRead := func() int {
		for i := range n {
			if _, _, err := conn.Read(ctx); err != nil {
				return i
			}
		}
		return n
	}
	byMessages := func() int {
		i := 0
		for _, err := range redialws.Messages(ctx, c.Supervisor) {
			if err != nil {
				break
			}
			if i++; i == n {
				break
			}
		}
		return i
	}
	testkit.AssertAllocatesAsRead(t, n, fill, byRead, byMessages)
	require.NoError(t, c.Stop())
}
