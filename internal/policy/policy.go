// Package policy holds the delay rules of a supervisor: how long to wait
// before the next attempt, and why. Every Supervisor runs this code, and
// examples/herd simulates it, so the simulation exercises the real rules
// rather than a copy.
package policy

import (
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
)

// Defaults of Config.
const (
	DefaultStableAfter = 30 * time.Second
	DefaultMaxHint     = 5 * time.Minute
)

// Config configures a Policy; zero fields mean the supervisor's defaults.
type Config struct {
	Backoff     backoff.Config
	StableAfter time.Duration // 0 means 30s
	MaxHint     time.Duration // 0 means 5 minutes
	Budget      *backoff.Budget
}

// Reason says why a Delay is as long as it is.
type Reason int

const (
	ReasonBackoff    Reason = iota // the backoff's own delay
	ReasonHint                     // the server's hint was longer
	ReasonBudget                   // the retry budget refused: Cap (or a longer hint)
	ReasonFirstRetry               // rand[0, Base) after a stable connection was lost
)

var reasonNames = [...]string{"backoff", "hint", "budget", "first-retry"}

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
	Hint   time.Duration // the server's hint after clamping to MaxHint; 0 if none
}

// Policy decides how long a supervisor waits before its next attempt. It
// is not safe for concurrent use: the supervisor's goroutine owns it.
//
// The rules: a failed attempt waits the backoff's next delay; a connection
// that lived at least StableAfter resets the backoff and its first retry
// waits rand[0, Base), so a fleet that lost one server at one instant comes
// back spread out; one that broke sooner (flapping) keeps the backoff
// growing. A server hint lengthens a wait, never shortens it, and the
// backoff still advances. A Budget that refuses a retry makes it wait Cap.
type Policy struct {
	b                    *backoff.Backoff
	first                *backoff.Backoff // draws the first retry: full jitter over [0, Base)
	base, cap            time.Duration
	stableAfter, maxHint time.Duration
	budget               *backoff.Budget
}

// firstSeed derives the first-retry generator's seed from a fixed seed,
// so that a reproducible run stays reproducible without the two
// generators drawing the same sequence.
const firstSeed = 0x5851f42d4c957f2d

// New returns a Policy for c. The supervisor validates StableAfter and
// MaxHint; New's only error is the Backoff config's.
func New(c Config) (*Policy, error) {
	b, err := backoff.New(c.Backoff)
	if err != nil {
		return nil, err
	}
	bc := b.Config()
	p := &Policy{b: b, base: bc.Base, cap: bc.Cap, stableAfter: c.StableAfter, maxHint: c.MaxHint, budget: c.Budget}
	if p.stableAfter <= 0 {
		p.stableAfter = DefaultStableAfter
	}
	if p.maxHint <= 0 {
		p.maxHint = DefaultMaxHint
	}
	if p.base > 1 {
		// Full jitter with Cap = Base draws uniformly from [0, Base-1ns]
		// on every Next, for good: it never grows past its Cap.
		fc := backoff.Config{Strategy: backoff.Full, Base: p.base - 1, Cap: p.base - 1}
		if c.Backoff.Seed != 0 {
			fc.Seed = c.Backoff.Seed ^ firstSeed
		}
		if p.first, err = backoff.New(fc); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Start is called before the first attempt (which is immediate): it counts
// one request for the Budget.
func (p *Policy) Start() {
	if p.budget != nil {
		p.budget.OnRequest()
	}
}

// Failed returns the wait after a failed attempt that ended with err.
func (p *Policy) Failed(err error) Delay {
	d := Delay{Wait: p.b.Next(), Reason: ReasonBackoff}
	if p.budget != nil && !p.budget.TryRetry() {
		d = Delay{Wait: p.cap, Reason: ReasonBudget}
	}
	return p.hinted(d, err)
}

// Lost returns the wait after an established connection broke with err
// after uptime.
func (p *Policy) Lost(uptime time.Duration, err error) Delay {
	if uptime < p.stableAfter {
		return p.Failed(err) // flapping: a retry like any other
	}
	p.b.Reset()
	p.Start()
	var wait time.Duration
	if p.first != nil {
		wait = p.first.Next()
	}
	return p.hinted(Delay{Wait: wait, Reason: ReasonFirstRetry}, err)
}

func (p *Policy) hinted(d Delay, err error) Delay {
	if h, ok := backoff.RetryAfterHint(err); ok {
		d.Hint = min(h, p.maxHint)
	}
	if d.Hint > d.Wait {
		d.Wait = d.Hint
		if d.Reason != ReasonBudget {
			d.Reason = ReasonHint
		}
	}
	return d
}
