package testkit

import (
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/supervisor"
)

// AssertAllocatesAsRead checks that an adapter's iterator (byIter)
// allocates no more per message than its library's own read (byRead).
// Each reads n messages and returns how many it read; fill has the server
// send n before each count begins (they wait in the socket buffers), so
// that only the client's allocations are counted. The least of three
// rounds is kept: background allocations only add.
func AssertAllocatesAsRead(t testing.TB, n int, fill func(), byRead, byIter func() int) {
	t.Helper()
	perMessage := func(read func() int) float64 {
		fill()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := read()
		runtime.ReadMemStats(&after)
		require.Equal(t, n, got)
		return float64(after.Mallocs-before.Mallocs) / float64(n)
	}
	perMessage(byRead) // warm up
	read, iter := math.Inf(1), math.Inf(1)
	for range 3 {
		read = min(read, perMessage(byRead))
		iter = min(iter, perMessage(byIter))
	}
	t.Logf("allocations per message: the library's read %.3f, the adapter's iterator %.3f", read, iter)
	assert.LessOrEqual(t, iter, read+0.1, "one allocation more per message would be 1.0 more")
}

// AssertMessagesAllocateAsRead checks AssertAllocatesAsRead for a WebSocket
// adapter: start's client reads small binary messages from serve's server,
// written by hand, with the library's read (read, one message on conn)
// and with the adapter's messages iterator.
func AssertMessagesAllocateAsRead[P, C comparable, M any](t *testing.T, serve FeedWith[P], start StartWS[C],
	read func(context.Context, C) error, messages func(context.Context, *supervisor.Supervisor[C]) iter.Seq2[M, error]) {
	const n = 2000
	ask, sent := make(chan struct{}), make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) bool {
		raw, rw, err := upgradeByHand(w, r)
		if err != nil {
			return true
		}
		defer raw.Close()
		gone := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, raw); close(gone) }()
		for {
			select {
			case <-ask:
			case <-gone:
				return true
			}
			for i := range n {
				_, _ = fmt.Fprintf(rw, "\x82\x0eprice %08d", i) // FIN, binary, 14 bytes
			}
			if rw.Flush() != nil {
				return true
			}
			sent <- struct{}{}
		}
	})
	c := start(t, srv.URL("/feed"), Socket(false))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	fill := func() {
		select {
		case ask <- struct{}{}:
		case <-ctx.Done():
			t.Fatal("the server was not asked")
		}
		select {
		case <-sent:
		case <-ctx.Done():
			t.Fatal("the server did not send")
		}
	}
	byRead := func() int {
		for i := range n {
			if read(ctx, conn) != nil {
				return i
			}
		}
		return n
	}
	byMessages := func() int {
		i := 0
		for _, err := range messages(ctx, c.Supervisor) {
			if err != nil {
				break
			}
			if i++; i == n {
				break
			}
		}
		return i
	}
	AssertAllocatesAsRead(t, n, fill, byRead, byMessages)
	require.NoError(t, c.Stop())
}
