package tcp_test

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
)

func stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// stacksAt is a slog.Handler for a supervisor's Logger that takes every
// goroutine's stack when the supervisor logs a record: on the
// supervisor's own goroutine, right after it closed a connection ("attempt
// failed", "connection lost", "stopped"). What a connection started and
// Close did not wait for is still there.
type stacksAt struct {
	mu  sync.Mutex
	got map[string][]string // by message
}

func newStacksAt() *stacksAt { return &stacksAt{got: map[string][]string{}} }

func (h *stacksAt) Enabled(context.Context, slog.Level) bool { return true }
func (h *stacksAt) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *stacksAt) WithGroup(string) slog.Handler            { return h }

func (h *stacksAt) Handle(_ context.Context, r slog.Record) error {
	s := stacks()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got[r.Message] = append(h.got[r.Message], s)
	return nil
}

// at returns the stacks taken at every record msg.
func (h *stacksAt) at(msg string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got[msg]
}
