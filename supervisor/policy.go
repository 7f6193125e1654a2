package supervisor

import (
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
)

// PolicyConfig configures a Policy; zero fields mean the same defaults as
// in Options.
type PolicyConfig struct {
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

// Policy decides how long a supervisor waits before its next attempt. It is
// the code every Supervisor runs, exported so that simulations (see
// examples/herd) exercise the real policy rather than a copy. A Policy is not
// safe for concurrent use.
//
// The rules: a failed attempt waits the backoff's next delay; a connection
// that lived at least StableAfter resets the backoff and its first retry
// waits rand[0, Base), so a fleet that lost one server at one instant comes
// back spread out; one that broke sooner (flapping) keeps the backoff
// growing. A server hint lengthens a wait, never shortens it, and the
// backoff still advances. A Budget that refuses a retry makes it wait Cap.
type Policy struct {
	b                    *backoff.Backoff
	base, cap            time.Duration
	stableAfter, maxHint time.Duration
	budget               *backoff.Budget
}

// NewPolicy validates c and returns a Policy.
func NewPolicy(c PolicyConfig) (*Policy, error) {
	switch {
	case c.StableAfter < 0:
		return nil, fmt.Errorf("supervisor: StableAfter %v is negative", c.StableAfter)
	case c.MaxHint < 0:
		return nil, fmt.Errorf("supervisor: MaxHint %v is negative", c.MaxHint)
	}
	b, err := backoff.New(c.Backoff)
	if err != nil {
		return nil, fmt.Errorf("supervisor: Backoff: %w", err)
	}
	p := &Policy{b: b, stableAfter: c.StableAfter, maxHint: c.MaxHint, budget: c.Budget}
	if p.stableAfter == 0 {
		p.stableAfter = DefaultStableAfter
	}
	if p.maxHint == 0 {
		p.maxHint = DefaultMaxHint
	}
	bc := b.Config()
	p.base, p.cap = bc.Base, bc.Cap
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
	return p.hinted(Delay{Wait: p.b.Jitter(p.base), Reason: ReasonFirstRetry}, err)
}

func (p *Policy) hinted(d Delay, err error) Delay {
	d.Hint = backoff.ClampedHint(err, p.maxHint)
	if d.Hint > d.Wait {
		d.Wait = d.Hint
		if d.Reason != ReasonBudget {
			d.Reason = ReasonHint
		}
	}
	return d
}
