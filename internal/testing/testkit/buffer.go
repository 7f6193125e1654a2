package testkit

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer that many goroutines may write (a slog
// handler, a program's output) and a test may read or wait on.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed on the next write; made when someone waits
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WaitFor blocks until the buffer holds text, failing t after d. It wakes
// on writes: no polling.
func (b *Buffer) WaitFor(t testing.TB, text string, d time.Duration) {
	t.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		b.mu.Lock()
		all := b.b.String()
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		if strings.Contains(all, text) {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no %q within %v in:\n%s", text, d, all)
		}
	}
}
