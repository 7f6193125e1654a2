package testkit

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
)

// Stacks returns every goroutine's stack.
func Stacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// StacksAt is a slog.Handler for a supervisor's Logger that takes every
// goroutine's stack when the supervisor logs a record: on the
// supervisor's own goroutine, right after it closed a connection ("attempt
// failed", "connection lost", "stopped"). What a connection started and
// Close did not wait for is still there.
type StacksAt struct {
	mu  sync.Mutex
	got map[string][]string // by message
}

// NewStacksAt returns an empty StacksAt.
func NewStacksAt() *StacksAt { return &StacksAt{got: map[string][]string{}} }

func (h *StacksAt) Enabled(context.Context, slog.Level) bool { return true }
func (h *StacksAt) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *StacksAt) WithGroup(string) slog.Handler            { return h }

// Handle takes the stacks.
func (h *StacksAt) Handle(_ context.Context, r slog.Record) error {
	s := Stacks()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got[r.Message] = append(h.got[r.Message], s)
	return nil
}

// At returns the stacks taken at every record msg.
func (h *StacksAt) At(msg string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got[msg]
}
