package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/internal/callback"
	"github.com/redial-go/redial/supervisor"
)

// hookRunner runs the program's hooks of a Pool's dials. pgxpool calls
// them on its own goroutines, out of the supervisor's reach, where a panic
// would end the program and a hook that ignores ctx would hold the dial
// and the pool's Close. So each call runs on a goroutine of its own and is
// abandoned at bound or at ctx's end; a panic fails that dial and is kept
// (crashed closed) for the supervisor to raise, or, once Run has returned
// (over), raised again there, as the supervisor does with a late panic.
type hookRunner struct {
	bound    time.Duration
	panicked atomic.Pointer[hookPanic]
	crashed  chan struct{}
	over     atomic.Bool
}

type hookPanic struct{ value any }

// programs returns the program's own panic value of v, which
// callback.Guard may have named: what a panic out of Run carries.
func programs(v any) any {
	if p, ok := v.(*callback.Panic); ok {
		return p.Value
	}
	return v
}

// call runs f within the bound; wake is called after the first panic.
func (r *hookRunner) call(ctx context.Context, wake func(), f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, r.bound)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				if r.over.Load() {
					panic(programs(v))
				}
				first := r.panicked.CompareAndSwap(nil, &hookPanic{v}) // named: the supervisor says "BeforeConnect panicked"
				// The dial's error first: wake ends the pool, and with it ctx.
				done <- &hookError{fmt.Errorf("panicked: %v: %w", programs(v), supervisor.ErrPanicked)}
				if first {
					close(r.crashed)
					wake()
				}
			}
		}()
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done:
			return err
		default:
		}
		return &hookError{fmt.Errorf("abandoned, still running: %w", context.Cause(ctx))}
	}
}
