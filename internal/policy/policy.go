// Package policy holds the delay rules of a supervisor: which endpoint the
// next attempt goes to, how long to wait before it, and why. examples/herd
// simulates this code, not a copy.
package policy

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/seed"
)

// DefaultStableAfter is Config.StableAfter's default.
const DefaultStableAfter = 30 * time.Second

// Config configures a Policy; zero fields mean the supervisor's defaults.
type Config struct {
	Backoff        backoff.Config
	StableAfter    time.Duration // 0 means 30s
	MaxHint        time.Duration // 0 means 5 minutes
	Budget         *backoff.Budget
	Endpoints      int           // 0 means 1
	FailoverSpread time.Duration // 0 means Base/2
	// AgeBound is the fraction of the outage so far that a Decorrelated
	// wait may last (see Policy); 0 means DefaultAgeBound, a negative value
	// no bound. examples/herd compares others.
	AgeBound float64
	// EjectAfter failed attempts in a row eject an endpoint of several
	// (0 means DefaultEjectAfter, negative never) for a time drawn from
	// [d/2, d], d = EjectBase doubled per ejection in a row up to EjectCap
	// (0 means the defaults).
	EjectAfter          int
	EjectBase, EjectCap time.Duration
	PreferFirst         bool // endpoint 0 is tried first whenever it is free; see FailBackAt
}

// DefaultAgeBound is Config.AgeBound's default.
const DefaultAgeBound = 0.5

// Reason says why a Delay is as long as it is.
type Reason int

const (
	ReasonBackoff    Reason = iota // the backoff's own delay, once per round
	ReasonHint                     // the endpoint rests longer: a server's hint
	ReasonBudget                   // the retry budget refused: Cap (or a longer hint)
	ReasonFirstRetry               // rand[0, Base) after a stable connection was lost
	ReasonFailover                 // rand[0, FailoverSpread) before the next endpoint
)

var reasonNames = [...]string{"backoff", "hint", "budget", "first-retry", "failover"}

func (r Reason) String() string {
	if r >= 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", int(r))
}

// Delay is a Policy's decision: wait this long, for this reason.
type Delay struct {
	Wait   time.Duration
	Reason Reason
	Hint   time.Duration // the failure's hint after clamping to MaxHint; 0 if none
	// Rest is how long the endpoint of the next attempt still rests (a
	// server's hint) from the decision: a wait cut short (supervisor's
	// RetryNow) lasts that long at least, though the backoff set its
	// length. 0 when it does not rest.
	Rest time.Duration
	// Ejected is how long the failed endpoint is ejected from now, when
	// this failure ejected it (again); 0 otherwise.
	Ejected time.Duration
}

// Policy decides where and when a supervisor makes its next attempt. It
// is not safe for concurrent use: the supervisor's goroutine owns it.
//
// The first attempt goes to endpoint 0. After a failure on endpoint i the
// next attempt goes to the next endpoint that has not failed in this round
// and does not rest, after rand[0, FailoverSpread). Only when every
// endpoint failed (or rests) does the round end with the backoff's next
// delay: with one endpoint, every attempt. Of several endpoints, one that
// failed EjectAfter attempts in a row (a hinted failure is not counted)
// is ejected: skipped until its ejection ends, then probed (tried again
// in turn: a failure ejects it again, longer; a connection makes it
// healthy). Never every endpoint at once: ejecting the last one frees the
// one ejected longest ago, so with all failing the rounds go on as
// without ejection. With PreferFirst, endpoint 0 is the next whenever it
// is free. A round that began with the loss
// of a connection that lived StableAfter resets the backoff and waits
// rand[0, Base); a flap keeps it growing. A hint (clamped to MaxHint) rests
// only its endpoint; no wait is shorter than the rest of the endpoint it
// goes to. A Budget's refusal waits Cap.
//
// With Decorrelated, a wait is also at most half the outage so far (Base
// at least), but the outage's first draw. An outage runs from the first
// failure, or a stable connection's loss, to the next such loss; after a
// flap the bounded wait is drawn from the bound's upper half, to keep a
// fleet spread. So a client's first attempt after the server is back
// comes within 1.5 times the outage or 4 Base (examples/herd measures it).
type Policy struct {
	b                    backoff.Backoff // by value, as first and the one endpoint's state: one allocation
	first                rand.PCG        // the first retry: uniform over [0, Base)
	ej                   *ejector        // several endpoints' (eject.go): the failover spread, ejections; nil with one
	base, cap            time.Duration
	stableAfter, maxHint time.Duration
	budget               *backoff.Budget

	n      int
	failed []bool      // endpoints that failed in this round
	rest   []time.Time // until when each endpoint rests (its hint)
	rest1  [1]time.Time
	uptime time.Duration
	since  time.Time // when the outage began (the first failure or stable loss); zero before either

	byAge   float32 // Decorrelated: the fraction of the outage's age a wait may last; 0: no bound
	failed1 [1]bool // failed and rest1 are the one endpoint's
	waited  bool    // a backoff wait of this outage was drawn already
	loss    bool    // this round began with a lost connection...
}

// Seeds of the extra generators, derived from a fixed Backoff seed so that
// a reproducible run stays reproducible without two generators drawing the
// same sequence.
const (
	firstSeed  = 0x5851f42d4c957f2d
	spreadSeed = 0x14057b7ef767814f
)

// New returns a Policy for c. The supervisor validates the durations;
// New's errors are the Backoff config's.
func New(c Config) (*Policy, error) {
	b, err := backoff.New(c.Backoff)
	if err != nil {
		return nil, err
	}
	bc := b.Config()
	p := &Policy{b: *b, base: bc.Base, cap: bc.Cap, stableAfter: c.StableAfter, maxHint: c.MaxHint, budget: c.Budget,
		n: max(c.Endpoints, 1)}
	if bc.Strategy == backoff.Decorrelated && c.AgeBound >= 0 {
		p.byAge = float32(cmp.Or(c.AgeBound, DefaultAgeBound))
	}
	if p.stableAfter <= 0 {
		p.stableAfter = DefaultStableAfter
	}
	if p.maxHint <= 0 {
		p.maxHint = backoff.DefaultMaxHint
	}
	seedPCG(&p.first, c.Backoff.Seed, firstSeed)
	spread := c.FailoverSpread
	if spread <= 0 {
		spread = p.base / 2
	}
	if p.n > 1 {
		p.ej = newEjector(c, p.n)
		if p.ej.spread, err = jitter(spread, c.Backoff.Seed, spreadSeed); err != nil {
			return nil, err
		}
	}
	if p.n == 1 {
		p.failed, p.rest = p.failed1[:], p.rest1[:]
	} else {
		p.failed, p.rest = make([]bool, p.n), make([]time.Time, p.n)
	}
	return p, nil
}

// jitter returns a Backoff that draws uniformly from [0, d) on every Next,
// for good (full jitter with Cap = Base never grows), or nil when d is
// too short to draw from.
func jitter(d time.Duration, seed, mix uint64) (*backoff.Backoff, error) {
	if d <= 1 {
		return nil, nil
	}
	c := backoff.Config{Strategy: backoff.Full, Base: d - 1, Cap: d - 1}
	if seed != 0 {
		c.Seed = seed ^ mix
	}
	return backoff.New(c)
}

// seedPCG seeds g as backoff.New seeds its generator: from fixed^mix when
// fixed is set (a reproducible run), else with seed.Pair.
func seedPCG(g *rand.PCG, fixed, mix uint64) {
	if fixed != 0 {
		s := fixed ^ mix
		g.Seed(s, s^0x9e3779b97f4a7c15)
		return
	}
	g.Seed(seed.Pair())
}

// below returns a uniform value in [0, n), n > 0 (Lemire's
// multiply-and-shift with rejection, as the backoff package draws).
func below(g *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(g.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.Uint64(), n)
		}
	}
	return hi
}

// firstRetry draws the first retry's wait from [0, Base).
func (p *Policy) firstRetry() time.Duration {
	if p.base <= 1 {
		return 0
	}
	return time.Duration(below(&p.first, uint64(p.base)))
}

func draw(b *backoff.Backoff) time.Duration {
	if b == nil {
		return 0
	}
	return b.Next()
}

// Endpoints returns the number of endpoints.
func (p *Policy) Endpoints() int { return p.n }

// Start is called before the first attempt (which is immediate, to
// endpoint 0): it counts one request for the Budget.
func (p *Policy) Start() {
	if p.budget != nil {
		p.budget.OnRequest()
	}
}

// Connected ends the round: a connection was made on endpoint i, which
// is healthy. Whether it ended the outage is known when it is lost: one
// that lived StableAfter did. It reports whether i had been ejected:
// healthy again.
func (p *Policy) Connected(i int) (recovered bool) {
	if p.ej != nil && i >= 0 && i < p.n {
		recovered = p.ej.eps[i].ejections > 0
		p.ej.eps[i] = ejection{}
	}
	clear(p.failed)
	p.loss = false
	return recovered
}

// Failed returns the endpoint of the next attempt and the wait before it,
// after an attempt on endpoint i failed with err at now.
func (p *Policy) Failed(i int, err error, now time.Time) (int, Delay) {
	return p.next(i, err, now, true)
}

// Lost returns the endpoint of the next attempt and the wait before it,
// after the connection on endpoint i broke with err at now, having lived
// uptime. The round that begins here keeps the loss in mind: when it ends,
// a stable loss resets the backoff.
func (p *Policy) Lost(i int, uptime time.Duration, err error, now time.Time) (int, Delay) {
	p.loss, p.uptime = true, uptime
	if uptime >= p.stableAfter || p.since.IsZero() {
		p.since, p.waited = now, false // the outage begins
	} else {
		p.waited = true // a flap: the outage goes on, and so does its bound
	}
	return p.next(i, err, now, false) // a connection was made: not the endpoint's failure
}

// next records endpoint i's failure (an attempt's when count) and decides.
func (p *Policy) next(i int, err error, now time.Time, count bool) (int, Delay) {
	i = min(max(i, 0), p.n-1)
	if p.since.IsZero() { // the first failure: the outage begins
		p.since = now
	}
	var hint, ejected time.Duration
	if h, ok := backoff.RetryAfterHint(err); ok {
		hint = min(h, p.maxHint)
		p.rest[i] = now.Add(hint)
	} else if count && p.ej != nil {
		ejected = p.ej.failed(i, now)
	}
	p.failed[i] = true
	if j := p.pick(i, now, true, true); j >= 0 { // the round goes on: the next endpoint at once
		return j, Delay{Wait: draw(p.ej.spread), Reason: ReasonFailover, Hint: hint, Ejected: ejected}
	}
	if next, d, ok := p.hintedRound(i, now); ok { // see hintedRound
		d.Hint, d.Ejected = hint, ejected
		clear(p.failed)
		p.loss = false
		return next, d
	}
	d := p.roundDelay(now)
	d.Hint, d.Ejected = hint, ejected
	clear(p.failed)
	p.loss = false
	// The next round starts with the first endpoint after i that rests no
	// longer than the wait, else with the one whose rest ends first.
	at := now.Add(d.Wait)
	next := p.pick(i, at, false, true)
	if next < 0 { // every endpoint that does not rest is ejected: try one all the same
		next = p.pick(i, at, false, false)
	}
	if next < 0 {
		next = (i + 1) % p.n
		for k := 2; k <= p.n; k++ {
			if j := (i + k) % p.n; p.rest[j].Before(p.rest[next]) {
				next = j
			}
		}
		d.Wait = p.rest[next].Sub(now)
		if d.Reason != ReasonBudget {
			d.Reason = ReasonHint
		}
	}
	d.Rest = max(0, p.rest[next].Sub(now))
	return next, d
}

// pick returns the endpoint after i that neither rests at at nor, when
// eject, is ejected (in a round, nor failed in it), endpoint 0 first with
// PreferFirst; -1: none.
func (p *Policy) pick(i int, at time.Time, round, eject bool) int {
	ok := func(j int) bool {
		return (!round || !p.failed[j]) && !p.rest[j].After(at) && (!eject || p.ej == nil || !p.ej.eps[j].until.After(at))
	}
	if p.ej != nil && p.ej.prefer && ok(0) {
		return 0
	}
	for k := 1; k <= p.n; k++ {
		if j := (i + k) % p.n; ok(j) {
			return j
		}
	}
	return -1
}

// roundDelay is the wait at the end of a round at now: the first retry
// after a stable loss, else the backoff's next delay (bounded by the
// outage's age, see Policy), or Cap when the Budget refuses the retry.
func (p *Policy) roundDelay(now time.Time) Delay {
	if p.loss && p.uptime >= p.stableAfter {
		p.b.Reset()
		p.Start()
		return Delay{Wait: p.firstRetry(), Reason: ReasonFirstRetry}
	}
	d := Delay{Wait: p.b.Next(), Reason: ReasonBackoff}
	if p.byAge > 0 {
		bound := max(p.base, time.Duration(float64(now.Sub(p.since))*float64(p.byAge)))
		if p.waited && d.Wait > bound {
			d.Wait = bound
			if p.loss { // a fleet that flapped at one instant has one bound: spread it
				d.Wait -= time.Duration(below(&p.first, uint64(bound/2)+1))
			}
		}
		p.waited = true
	}
	if p.budget != nil && !p.budget.TryRetry() {
		d = Delay{Wait: p.cap, Reason: ReasonBudget}
	}
	return d
}
