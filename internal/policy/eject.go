package policy

import (
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/backoff"
)

// Defaults of Config's ejection fields (BENCHMARKS.md, "Ejecting a
// replica", has the sweep that chose them).
const (
	DefaultEjectAfter = 3
	DefaultEjectBase  = 10 * time.Second
	DefaultEjectCap   = time.Minute
)

// State is an endpoint's health.
type State int

const (
	Healthy State = iota // tried in every round
	Ejected              // skipped until its ejection ends
	Probing              // its ejection ended: the next attempt on it is a probe
)

// Endpoint is one endpoint's health, as Policy.Endpoint reports it.
type Endpoint struct {
	State     State
	Failures  int       // consecutive failed attempts (a hinted one is not counted)
	Ejections int       // consecutive ejections; a connection resets it
	Until     time.Time // when the current or last ejection ends
}

// ejection is what the policy keeps per endpoint (several endpoints only).
type ejection struct {
	failures, ejections int
	until, since        time.Time // the ejection's end and beginning
}

// ejector is the state of several endpoints: the failover's spread, and
// the ejection of those that keep failing (see Policy).
type ejector struct {
	spread    *backoff.Backoff // full jitter over [0, FailoverSpread); nil for 0
	after     int              // 0: never eject
	base, cap time.Duration
	prefer    bool
	g         rand.PCG
	eps       []ejection
}

const ejectSeed = 0x2545f4914f6cdd1d

// newEjector returns the ejector of n > 1 endpoints.
func newEjector(c Config, n int) *ejector {
	e := &ejector{after: c.EjectAfter}
	switch {
	case e.after == 0:
		e.after = DefaultEjectAfter
	case e.after < 0:
		e.after = 0 // never: PreferFirst still holds
	}
	e.base, e.cap = c.EjectBase, c.EjectCap
	if e.base <= 0 {
		e.base = DefaultEjectBase
	}
	if e.cap <= 0 {
		e.cap = max(DefaultEjectCap, e.base)
	}
	e.prefer = c.PreferFirst
	e.eps = make([]ejection, n)
	seedPCG(&e.g, c.Backoff.Seed, ejectSeed)
	return e
}

// failed counts a failed attempt on endpoint i at now, ejecting it at the
// threshold; a probe that failed (its count is past it) ejects it again.
// It returns the ejection's length; 0: not ejected.
func (e *ejector) failed(i int, now time.Time) time.Duration {
	ep := &e.eps[i]
	ep.failures++
	if e.after == 0 || ep.failures < e.after {
		return 0
	}
	ep.ejections++
	d := e.draw(ep.ejections)
	ep.until, ep.since = now.Add(d), now
	// Never every endpoint at once: the one ejected longest ago goes back
	// to probing (Envoy's max_ejection_percent, at n-1).
	oldest := -1
	for j := range e.eps {
		if j == i {
			continue
		}
		if !e.eps[j].until.After(now) {
			return d
		}
		if oldest < 0 || e.eps[j].since.Before(e.eps[oldest].since) {
			oldest = j
		}
	}
	if oldest >= 0 {
		e.eps[oldest].until = now
	}
	return d
}

// draw returns the k-th consecutive ejection's length: Base doubled per
// ejection up to Cap, d, drawn from [d/2, d].
func (e *ejector) draw(k int) time.Duration {
	d := e.base
	for ; k > 1 && d < e.cap; k-- {
		d *= 2
	}
	d = min(d, e.cap)
	return d/2 + time.Duration(below(&e.g, uint64(d/2)+1))
}

// Endpoint returns endpoint i's health at now.
func (p *Policy) Endpoint(i int, now time.Time) Endpoint {
	if p.ej == nil || i < 0 || i >= p.n {
		return Endpoint{}
	}
	ep := p.ej.eps[i]
	out := Endpoint{Failures: ep.failures, Ejections: ep.ejections, Until: ep.until}
	switch {
	case ep.until.After(now):
		out.State = Ejected
	case ep.ejections > 0:
		out.State = Probing
	}
	return out
}

// FailBackAt returns when a connection made at now on endpoint i is
// replaced by one on endpoint 0, with PreferFirst: when endpoint 0's
// ejection ends, or, when it is not ejected, after a first ejection's
// length (jittered, so that a fleet does not come back at once); never
// while it rests (a server's hint). Zero: never (no PreferFirst, one
// endpoint, or i is 0).
func (p *Policy) FailBackAt(i int, now time.Time) time.Time {
	if p.ej == nil || !p.ej.prefer || i == 0 {
		return time.Time{}
	}
	at := p.ej.eps[0].until
	if !at.After(now) {
		at = now.Add(p.ej.draw(1))
	}
	if p.rest[0].After(at) {
		at = p.rest[0]
	}
	return at
}
