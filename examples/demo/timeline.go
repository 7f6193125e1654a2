package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redial-go/redial/supervisor"
)

// console serializes the demo's output lines, each stamped with the time
// since the start.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

func (c *console) printf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "%8.3fs  %s\n", time.Since(c.start).Seconds(), fmt.Sprintf(format, args...))
}

// timeline is a slog.Handler that turns the supervisor's records (one per
// state change, with stable keys) into the demo's timeline lines.
type timeline struct{ out *console }

func (h timeline) Enabled(context.Context, slog.Level) bool { return true }
func (h timeline) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h timeline) WithGroup(string) slog.Handler            { return h }

func (h timeline) Handle(_ context.Context, r slog.Record) error {
	a := map[string]string{}
	r.Attrs(func(at slog.Attr) bool {
		a[at.Key] = at.Value.String()
		return true
	})
	var b strings.Builder
	switch r.Message {
	case "connecting":
		fmt.Fprintf(&b, "connecting to %s", a[supervisor.LogName]) // the URL, redacted
	case "connected":
		fmt.Fprintf(&b, "CONNECTED (connection #%s)", a[supervisor.LogConnects])
	case "attempt failed":
		fmt.Fprintf(&b, "attempt %s failed: %s", a[supervisor.LogConsecutiveFailures], a[supervisor.LogErr])
	case "connection lost":
		fmt.Fprintf(&b, "LOST after %s: %s", round(a[supervisor.LogUptime]), strings.TrimPrefix(a[supervisor.LogErr], "connection lost: "))
	default:
		fmt.Fprintf(&b, "%s", strings.TrimSpace(r.Message+" "+a[supervisor.LogErr]))
	}
	if d, ok := a[supervisor.LogDelay]; ok {
		fmt.Fprintf(&b, "\n%11s-> next attempt in %s (%s", "", round(d), a[supervisor.LogReason])
		if hint, ok := a[supervisor.LogHint]; ok {
			fmt.Fprintf(&b, ": the server asked for %s", round(hint))
		}
		b.WriteString(")")
	}
	h.out.printf("%s", b.String())
	return nil
}

// round shortens a duration's text to milliseconds.
func round(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.Round(time.Millisecond).String()
}
