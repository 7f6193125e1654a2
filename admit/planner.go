package admit

import (
	"cmp"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/redial-go/redial/internal/opterr"
)

const (
	DefaultHold    = 2 * time.Second // a client sent away comes within the two seconds before its slot
	DefaultHorizon = 5 * time.Minute // redial's MaxHint: a longer hint is cut short by the client
	MaxRate        = 100_000         // connections a second (and Burst): more is a unit's mistake
)

const (
	stale  = time.Minute            // a promised slot unclaimed this long after its time is given up
	window = 100 * time.Millisecond // Handler lets no window through past its share
)

// Config is what a server operator sets; zero fields mean the defaults.
type Config struct {
	Rate  float64 // new connections a second the server can take: the plan's pace; required
	Burst int     // how many it may take at once; 0 means 1
	// Hold is how long a request may wait in the server for a near slot, 0
	// meaning DefaultHold; below 2 s an early client (hints name whole
	// seconds) is sent away again.
	Hold time.Duration
	// Horizon is the furthest slot planned, 0 meaning DefaultHorizon: past
	// it a client is told to come back then, with no slot (a client cuts a
	// longer hint to its MaxHint, and the plan would outgrow its service).
	Horizon time.Duration
}

// Planner admits new connections at Config.Rate and gives each one it
// refuses the next free slot. It is safe for concurrent use.
type Planner struct {
	every, tau, hold, horizon time.Duration

	mu        sync.Mutex
	next      time.Time   // the plan's next free slot
	tat       time.Time   // the pacer: the next admission's time without a burst
	released  []time.Time // Handler's last share of releases, a ring at ri
	ri, share int
	promised  []time.Time // slots promised to refused clients, oldest first
	head      int         // promised[:head] are claimed
}

// New returns a Planner, or an error wrapping supervisor.ErrInvalidOptions.
func New(c Config) (*Planner, error) {
	switch {
	case math.IsNaN(c.Rate) || c.Rate <= 0 || c.Rate > MaxRate:
		return nil, opterr.New("admit", "Rate", c.Rate, "must be in (0, %d]", MaxRate)
	case c.Burst < 0 || c.Burst > MaxRate:
		return nil, opterr.New("admit", "Burst", c.Burst, "must be in [0, %d]", MaxRate)
	}
	if err := errors.Join(opterr.Duration("admit", "Hold", c.Hold), opterr.Duration("admit", "Horizon", c.Horizon)); err != nil {
		return nil, err
	}
	p := &Planner{every: max(time.Duration(float64(time.Second)/c.Rate), 1), hold: cmp.Or(c.Hold, DefaultHold),
		horizon: cmp.Or(c.Horizon, DefaultHorizon)}
	p.tau = time.Duration(max(c.Burst, 1)-1) * p.every
	p.share = int(math.Ceil(c.Rate*window.Seconds())) + max(c.Burst, 1) - 1
	return p, nil
}

// Plan decides on a connection arriving at now: admitted (ok) after wait
// (at most Hold), or refused with wait the Retry-After, whole seconds, one
// less than its slot's, so that a client spreading over the second comes
// just before its slot.
func (p *Planner) Plan(now time.Time) (wait time.Duration, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	slot, has := p.claim(now)
	if !has { // no promise is due: the next free slot, if it is near
		p.next = later(p.next, now.Add(-p.tau))
		if p.next.Sub(now) <= p.hold {
			slot, has = p.next, true
			p.next = p.next.Add(p.every)
		}
	}
	if has {
		at := later(later(now, slot), p.tat.Add(-p.tau))
		if at.Sub(now) <= p.hold {
			p.tat = later(p.tat, at).Add(p.every)
			return at.Sub(now), true
		}
	}
	s := later(p.next, now.Add(max(p.hold, 2*time.Second)))
	if s.Sub(now) > p.horizon { // the plan is full: no slot
		return max(p.horizon.Truncate(time.Second), time.Second), false
	}
	p.next = s.Add(p.every)
	p.promised = append(p.promised, s)
	return hint(s.Sub(now)), false
}

// claim takes the oldest promised slot due at now (Hold ahead at most).
func (p *Planner) claim(now time.Time) (time.Time, bool) {
	for p.head < len(p.promised) && now.Sub(p.promised[p.head]) > stale {
		p.head++
	}
	if p.head > 1024 && p.head > len(p.promised)/2 { // reuse the front
		p.promised = p.promised[:copy(p.promised, p.promised[p.head:])]
		p.head = 0
	}
	if p.head == len(p.promised) || p.promised[p.head].Sub(now) > p.hold {
		return time.Time{}, false
	}
	p.head++
	return p.promised[p.head-1], true
}

func hint(d time.Duration) time.Duration {
	return max(d.Truncate(time.Second)-time.Second, time.Second)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// release lets a woken request through at now (0) unless the last window
// took its share, else says when to ask again: a stalled process does not
// let its overdue requests through at once.
func (p *Planner) release(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released == nil {
		p.released = make([]time.Time, p.share)
	}
	if last := p.released[p.ri]; !last.IsZero() && now.Sub(last) < window {
		return window - now.Sub(last)
	}
	p.released[p.ri] = now
	p.ri = (p.ri + 1) % len(p.released)
	return 0
}
