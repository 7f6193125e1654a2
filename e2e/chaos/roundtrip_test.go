package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/health"
)

// The round-trip rule (see doc.go): a subject that says Connected, with
// no fault touching it now, completes a round trip within rtTimeout if
// its connection cannot have been hurt by a fault without it noticing:
// either the connection's attempt began after the last fault touching it
// was removed (an attempt begins at most ConnectTimeout before
// Status.Since), or that fault was removed more than detectBound ago,
// long enough for the heartbeats to notice a connection it broke (no
// fault leaves a connection silently broken once it is removed: the
// toxics either close every connection they touch or pass on everything
// they held). A fault that comes during the round trip voids the check.
// A subject that loses its connection during a failed round trip is a
// violation too: it said Connected and could not deliver.

// rtStats counts the probes.
type rtStats struct {
	ok      atomic.Int64
	down    atomic.Int64 // skipped: not Connected
	faulted atomic.Int64 // skipped: a fault in force now
	older   atomic.Int64 // skipped: the connection is older than the last fault
	other   atomic.Int64 // skipped: a fault came during the probe, the test's side failed, the run ended
	mu      sync.Mutex
	slowest time.Duration
	slowOne string // the subject of the slowest round trip
}

func (r *rtStats) took(name string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d > r.slowest {
		r.slowest, r.slowOne = d, name
	}
}

const (
	probers     = 8                      // goroutines that probe, each a share of the subjects
	probePeriod = 150 * time.Millisecond // pause after each pass over a share
)

// probe checks the round-trip rule once for s.
func probe(ctx context.Context, s subject, v *violations, stats *rtStats) {
	b := s.base()
	before := s.Status()
	// No fault may have been in force since the attempt's beginning, or
	// since detectBound ago, whichever came last.
	since := before.Since.Add(-connectTimeout)
	if trusted := time.Now().Add(-detectBound); trusted.After(since) {
		since = trusted
	}
	switch active, lastEnd := b.window.state(); {
	case before.State != health.Connected:
		stats.down.Add(1)
		return
	case active:
		stats.faulted.Add(1)
		return
	case !lastEnd.Before(since):
		stats.older.Add(1)
		return
	}
	trip, release, err := prepare(ctx, s)
	if err != nil {
		stats.other.Add(1)
		if ctx.Err() == nil {
			v.note(b.name, "a fresh login for a round trip failed, excused (the pool growing, not its connection): %v", err)
		}
		return
	}
	defer release()
	rctx, cancel := context.WithTimeout(ctx, rtTimeout)
	start := time.Now()
	err = trip(rctx)
	took := time.Since(start)
	cancel()
	if err == nil {
		stats.ok.Add(1)
		stats.took(b.name, took)
		if took > rtTimeout/2 {
			last := "no fault yet"
			switch _, lastEnd := b.window.state(); {
			case lastEnd.After(start):
				last = "a fault came and went during it"
			case !lastEnd.IsZero():
				last = fmt.Sprintf("the last fault ended %v before", start.Sub(lastEnd).Round(time.Millisecond))
			}
			v.note(b.name, "a round trip took %v (connection %d, since %s; %s)",
				took.Round(time.Millisecond), before.Connects, before.Since.Format("15:04:05.000"), last)
		}
		return
	}
	if ctx.Err() != nil || errors.Is(err, errHelper) || !b.window.quietSince(since) {
		stats.other.Add(1) // the run is ending, the test's own side failed, or a fault came meanwhile
		if ctx.Err() == nil {
			v.note(b.name, "a round trip failed after %v, excused (a fault came, or the test's side failed): %v", took.Round(time.Millisecond), err)
		}
		return
	}
	after := s.Status()
	v.add(ruleRoundTrip, b.name, "said Connected (connection %d, since %s; no fault touched it since %s) but a round trip failed after %v: %v; now %s, connection %d",
		before.Connects, before.Since.Format("15:04:05.000"), since.Format("15:04:05.000"), took.Round(time.Millisecond), err, after.State, after.Connects)
}

// acquirer is a subject whose round trip may need a connection of its own
// first (a Pool logs one in when none is idle).
type acquirer interface {
	acquire(ctx context.Context) (trip func(context.Context) error, release func(), err error)
}

// prepare returns s's round trip, with the connection it needs acquired
// before the round trip's clock starts: a fresh login is bounded by the
// library's own ConnectTimeout and loginBound, not by rtTimeout.
func prepare(ctx context.Context, s subject) (trip func(context.Context) error, release func(), err error) {
	a, ok := s.(acquirer)
	if !ok {
		return s.roundTrip, func() {}, nil
	}
	actx, cancel := context.WithTimeout(ctx, loginBound)
	defer cancel()
	return a.acquire(actx)
}

// startProbers probes every subject in turn until ctx ends.
func startProbers(ctx context.Context, wg *sync.WaitGroup, subjects []subject, v *violations, stats *rtStats) {
	for k := range probers {
		wg.Go(func() {
			for {
				for i := k; i < len(subjects); i += probers {
					probe(ctx, subjects[i], v, stats)
				}
				if !pause(ctx, probePeriod) {
					return
				}
			}
		})
	}
}
