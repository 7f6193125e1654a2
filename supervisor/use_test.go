package supervisor_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// checked is a fake whose Broken says only errConnGone breaks a connection.
type checked struct{ noWatch }

var (
	errConnGone = errors.New("connection gone")
	errSQL      = errors.New("syntax error")
)

func (checked) Broken(err error) bool { return errors.Is(err, errConnGone) }

func TestDoInvalidatesOnlyWhatBroke(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, checked{noWatch{f}}, exponential(time.Second, time.Minute))
		var got *conn
		require.ErrorIs(t, r.Do(t.Context(), func(_ context.Context, c *conn) error { got = c; return errSQL }), errSQL)
		synctest.Wait()
		assert.Equal(t, health.Connected, r.Status().State, "an error the BrokenChecker calls harmless keeps the connection")
		assert.Equal(t, uint64(1), r.Status().Connects)

		require.ErrorIs(t, r.Do(t.Context(), func(_ context.Context, c *conn) error { return errConnGone }), errConnGone)
		synctest.Wait()
		st := r.Status()
		assert.Equal(t, health.Backoff, st.State, "a breaking error invalidates the connection")
		assert.ErrorIs(t, st.Err, errConnGone)
		assert.Equal(t, 1, f.closes[got])

		require.NoError(t, r.Do(t.Context(), func(_ context.Context, c *conn) error {
			assert.NotSame(t, got, c, "Do waited for the next connection")
			return nil
		}))
		assert.NoError(t, r.stop())
	})
}

func TestDoWithoutBrokenCheckerInvalidatesOnAnyError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, noWatch{f}, exponential(time.Second, time.Minute))
		require.ErrorIs(t, r.Do(t.Context(), func(context.Context, *conn) error { return errSQL }), errSQL)
		synctest.Wait()
		assert.Equal(t, health.Backoff, r.Status().State)
		assert.NoError(t, r.stop())
	})
}

func TestDoReturnsWhyNoConnectionCame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		denied := errors.New("401")
		r := start(t, &fake{results: []error{backoff.Permanent(denied)}}, exponential(time.Second, time.Minute))
		called := false
		err := r.Do(t.Context(), func(context.Context, *conn) error { called = true; return nil })
		assert.ErrorIs(t, err, supervisor.ErrFailed)
		assert.ErrorIs(t, err, denied)
		assert.False(t, called)
		<-r.done
	})
}

func TestConnectionsYieldsEachConnectionOnceAndEndsAtFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		denied := errors.New("401")
		// Three connections, then every attempt is refused for good.
		f := &fake{results: []error{nil, nil, nil, backoff.Permanent(denied)}}
		r := start(t, noWatch{f}, exponential(time.Second, time.Minute))
		var seen []*conn
		iterations := 0
		for c := range r.Connections(t.Context()) {
			iterations++
			require.Less(t, iterations, 10, "the loop spins")
			seen = append(seen, c)
			if len(seen) == 2 {
				r.Invalidate(c, errConnGone) // a reason of its own
			}
			// The body returns: the connection is released.
		}
		require.Len(t, seen, 3)
		assert.NotSame(t, seen[0], seen[1])
		assert.NotSame(t, seen[1], seen[2])
		<-r.Done()
		assert.ErrorIs(t, r.Err(), supervisor.ErrFailed, "Err says the loop ended because the supervisor failed")
		assert.ErrorIs(t, r.Err(), denied)
		for _, c := range seen {
			assert.Equal(t, 1, f.closes[c], "every yielded connection was closed once")
		}
	})
}

func TestConnectionsRecordsWhyAConnectionWasReleased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, noWatch{&fake{}}, exponential(time.Second, time.Minute))
		n := 0
		for range r.Connections(t.Context()) {
			if n++; n == 2 {
				break
			}
		}
		synctest.Wait()
		st := r.Status()
		assert.ErrorIs(t, st.Err, supervisor.ErrInvalidated)
		assert.Contains(t, st.Err.Error(), "Connections loop body returned")
		assert.Equal(t, health.Connected, st.State, "a break leaves the connection as it is")
		assert.Equal(t, uint64(2), st.Connects)
		assert.NoError(t, r.stop())
	})
}

func TestConnectionsEndsWithCtx(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, noWatch{&fake{results: errs(100, errors.New("refused"))}}, exponential(time.Second, time.Minute))
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		for range r.Connections(ctx) {
			t.Fatal("no connection was made")
		}
		assert.Equal(t, 5*time.Second, time.Since(t0), "it waited for ctx, no longer")
		assert.NoError(t, r.stop())
		assert.NoError(t, r.Err(), "Stopped: Err is nil")
	})
}

func TestDoneAndErr(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, &fake{}, exponential(time.Second, time.Minute))
		synctest.Wait()
		select {
		case <-r.Done():
			t.Fatal("Done closed while Run runs")
		default:
		}
		assert.NoError(t, r.Err())
		assert.ErrorIs(t, r.Run(t.Context()), supervisor.ErrAlreadyStarted, "a second Run")
		select {
		case <-r.Done():
			t.Fatal("a second Run closed Done")
		default:
		}
		assert.NoError(t, r.stop())
		<-r.Done()
		assert.NoError(t, r.Err())
	})
}

func TestHealthChannelClosesAfterTheFinalStatus(t *testing.T) {
	for _, final := range []health.State{health.Stopped, health.Failed} {
		t.Run(final.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{}
				if final == health.Failed {
					f.results = []error{errors.New("refused"), backoff.Permanent(errors.New("401"))}
				}
				r := start(t, f, exponential(time.Second, time.Minute))
				ch, unsub := r.Subscribe()
				defer unsub() // safe after the channel closed
				var last health.Status
				n := 0
				go func() {
					synctest.Wait()
					time.Sleep(time.Second) // through the backoff
					if final == health.Stopped {
						r.cancel()
					}
				}()
				for st := range ch { // ends by itself
					last = st
					n++
				}
				assert.Equal(t, final, last.State, "the last Status offered is the final one")
				assert.Positive(t, n)
				<-r.done

				late, unsubLate := r.Subscribe()
				st, ok := <-late
				assert.True(t, ok)
				assert.Equal(t, final, st.State, "a late subscriber gets the final Status")
				_, ok = <-late
				assert.False(t, ok, "then the channel is closed")
				unsubLate()
			})
		})
	}
}
