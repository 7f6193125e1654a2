package testkit

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
