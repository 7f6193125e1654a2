package websocket_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
)

// sendingServer writes msgs[n] on its n-th connection (counted from 1),
// then closes it with closes[n] (none: reads until the client leaves).
func sendingServer(t *testing.T, msgs map[int64][]string, closes map[int64]websocket.StatusCode) *server {
	var conns atomic.Int64
	return startServer(t, func(s *server, w http.ResponseWriter, r *http.Request) {
		c := s.accept(w, r)
		if c == nil {
			return
		}
		defer s.forget(c)
		n := conns.Add(1)
		for _, m := range msgs[n] {
			if c.Write(r.Context(), websocket.MessageText, []byte(m)) != nil {
				return
			}
		}
		if code, ok := closes[n]; ok {
			_ = c.Close(code, "bye")
			return
		}
		_, _, _ = c.Read(r.Context())
	})
}

// The messages of one connection, the read error once, then the next
// connection's messages, in order.
func TestMessagesInOrderAcrossServerClose(t *testing.T) {
	srv := sendingServer(t, map[int64][]string{1: {"1", "2", "3"}, 2: {"4", "5", "6"}}, map[int64]websocket.StatusCode{1: websocket.StatusGoingAway})
	c := run(t, srv.url("/feed"), testOptions(), false)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	var got []string
	var errs []error
	for msg, err := range redialws.Messages(ctx, c.Supervisor) {
		if err != nil {
			got = append(got, "error")
			if errs = append(errs, err); len(errs) > 1 {
				break // once is the rule
			}
			continue
		}
		assert.Equal(t, websocket.MessageText, msg.Type)
		if got = append(got, string(msg.Data)); len(got) == 7 {
			break
		}
	}
	assert.Equal(t, []string{"1", "2", "3", "error", "4", "5", "6"}, got)
	require.Len(t, errs, 1, "the read error is yielded once")
	assert.True(t, strings.HasPrefix(errs[0].Error(), "websocket: read: "), "%v", errs[0])
	assert.Equal(t, websocket.StatusGoingAway, redialws.CloseStatus(errs[0]), "%v", errs[0])
	st := c.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.Equal(t, uint64(2), st.Connects)
	assert.Equal(t, websocket.StatusGoingAway, redialws.CloseStatus(st.Err), "Classify saw the close status: %v", st.Err)
	require.NoError(t, c.stop())
}

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
		defer s.forget(c)
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
	perMessage := func(read func() int) float64 {
		require.NoError(t, conn.Write(ctx, websocket.MessageText, []byte("send "+strconv.Itoa(n))))
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatal("the server did not send")
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := read()
		runtime.ReadMemStats(&after)
		require.Equal(t, n, got)
		return float64(after.Mallocs-before.Mallocs) / n
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
	perMessage(byRead) // warm up
	read, messages := math.Inf(1), math.Inf(1)
	for range 3 { // the least of three: background allocations only add
		read = min(read, perMessage(byRead))
		messages = min(messages, perMessage(byMessages))
	}
	t.Logf("allocations per message: conn.Read %.3f, Messages %.3f", read, messages)
	assert.LessOrEqual(t, messages, read+0.1, "one allocation more per message would be 1.0 more")
	require.NoError(t, c.stop())
}
