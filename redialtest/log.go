package redialtest

import (
	"context"
	"log/slog"
	"time"
)

// loggerPanicking returns l, made to panic with v when it handles a
// record whose message is msg.
func loggerPanicking(l *slog.Logger, msg string, v any) *slog.Logger {
	return slog.New(panicking{l.Handler(), msg, v})
}

type panicking struct {
	slog.Handler
	msg string
	v   any
}

func (h panicking) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		panic(h.v)
	}
	return h.Handler.Handle(ctx, r)
}

// loggerBlocking returns l, made slow: it handles a record of level Error
// (the supervisor's "gave up") only once release is closed, or after wait.
func loggerBlocking(l *slog.Logger, release <-chan struct{}) *slog.Logger {
	return slog.New(blocking{l.Handler(), release})
}

type blocking struct {
	slog.Handler
	release <-chan struct{}
}

func (h blocking) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-h.release:
		case <-t.C:
		}
	}
	return h.Handler.Handle(ctx, r)
}
