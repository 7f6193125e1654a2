package policy

import "time"

// hintedRound ends a round in which every endpoint rests at least Base
// from now (a server's hint on each; with one endpoint, its hint): the
// wait is the earliest rest, to that endpoint, even when the backoff's
// draw is longer. The server named its time, often a slot it planned
// (package admit); a longer draw would bring the client late and waste
// the slot. The draw is still made, so the progression goes on under the
// hint, and a Budget's refusal still waits Cap. A shorter hint stays a
// floor under the backoff's wait.
func (p *Policy) hintedRound(i int, now time.Time) (int, Delay, bool) {
	next := -1
	for k := 1; k <= p.n; k++ {
		j := (i + k) % p.n
		if p.rest[j].Sub(now) < p.base {
			return 0, Delay{}, false
		}
		if next < 0 || p.rest[j].Before(p.rest[next]) {
			next = j
		}
	}
	w := p.rest[next].Sub(now)
	d := p.roundDelay(now)
	if d.Reason == ReasonBudget {
		return next, Delay{Wait: max(w, d.Wait), Reason: ReasonBudget, Rest: w}, true
	}
	return next, Delay{Wait: w, Reason: ReasonHint, Rest: w}, true
}
