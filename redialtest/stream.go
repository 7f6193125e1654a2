package redialtest

import (
	"context"
	"iter"
)

// Connections is the Stream of a supervisor's Connections loop whose body
// is use: it uses conn as a program does until conn breaks, and returns
// why. The loop yields each connection, then the error of its break
// (after Invalidate with it). sup is the client's supervisor, or the type
// embedding it whose Connections the program uses.
func Connections[C comparable, L Looper[C]](sup func(Client) L, use func(ctx context.Context, conn C) error) Stream {
	return Stream{Name: "Connections", Greets: true, Range: func(ctx context.Context, c Client) iter.Seq2[any, error] {
		s := sup(c)
		return func(yield func(any, error) bool) {
			for conn := range s.Connections(ctx) {
				if !yield(conn, nil) {
					return
				}
				err := use(ctx, conn)
				if ctx.Err() != nil {
					return
				}
				s.Invalidate(conn, err)
				if !yield(nil, err) {
					return
				}
			}
		}
	}}
}

// Looper is what Connections loops over: a *supervisor.Supervisor[C] or a
// type that embeds it.
type Looper[C comparable] interface {
	Connections(ctx context.Context) iter.Seq[C]
	Invalidate(conn C, err error)
}

// Seq2 makes an adapter's iterator a Stream's.
func Seq2[T any](seq iter.Seq2[T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			var item any
			if err == nil {
				item = v
			}
			if !yield(item, err) {
				return
			}
		}
	}
}

// OnConnect makes a case's OnConnect an adapter's: nil stays nil.
func OnConnect[C any](f func(ctx context.Context) error) func(context.Context, C) error {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, _ C) error { return f(ctx) }
}
