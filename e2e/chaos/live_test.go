package chaos

import (
	"sync"
	"time"
)

// liveCounter counts live connections per subject as the servers see
// them: the WebSocket servers call open and close, the PostgreSQL monitor
// sets the counts it reads from pg_stat_activity. A subject over its limit
// for longer than overlapGrace is a violation (sweep). Safe for concurrent
// use.
type liveCounter struct {
	v *violations

	mu    sync.Mutex
	limit map[string]int       // allowed live connections; 1 unless set
	live  map[string]int       // live now
	over  map[string]time.Time // when the subject went over its limit; absent when not over
	told  map[string]bool      // this episode was reported
	most  map[string]int       // the most live connections in this episode
	opens int                  // connections opened, over all subjects
}

func newLiveCounter(v *violations) *liveCounter {
	return &liveCounter{v: v, limit: map[string]int{}, live: map[string]int{}, over: map[string]time.Time{},
		told: map[string]bool{}, most: map[string]int{}}
}

// setLimit allows subject n live connections (a Pool's MaxConns).
func (c *liveCounter) setLimit(subject string, n int) {
	c.mu.Lock()
	c.limit[subject] = n
	c.mu.Unlock()
}

func (c *liveCounter) open(subject string) { c.add(subject, 1, true) }

func (c *liveCounter) close(subject string) { c.add(subject, -1, false) }

// set sets the count read from the server at once.
func (c *liveCounter) set(subject string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.update(subject, n, time.Now())
}

func (c *liveCounter) add(subject string, d int, opened bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if opened {
		c.opens++
	}
	c.update(subject, c.live[subject]+d, time.Now())
}

// update stores n; c.mu is held.
func (c *liveCounter) update(subject string, n int, now time.Time) {
	c.live[subject] = n
	limit := max(c.limit[subject], 1)
	_, was := c.over[subject]
	switch {
	case n > limit && !was:
		c.over[subject] = now
		c.most[subject] = n
	case n > limit:
		c.most[subject] = max(c.most[subject], n)
	case was:
		c.checkOver(subject, now) // an episode that ended between two sweeps
		delete(c.over, subject)
		delete(c.told, subject)
	}
}

// sweep reports every subject that has been over its limit for longer
// than overlapGrace.
func (c *liveCounter) sweep() { c.sweepAt(time.Now()) }

func (c *liveCounter) sweepAt(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for subject := range c.over {
		c.checkOver(subject, now)
	}
}

// checkOver reports subject's episode once if it lasted overlapGrace; c.mu is held.
func (c *liveCounter) checkOver(subject string, now time.Time) {
	since := c.over[subject]
	if c.told[subject] || now.Sub(since) <= overlapGrace {
		return
	}
	c.told[subject] = true
	c.v.add(ruleOneConn, subject, "%d live server-side connections (limit %d) for %v, since %s",
		c.most[subject], max(c.limit[subject], 1), now.Sub(since).Round(time.Millisecond), since.Format("15:04:05.000"))
}

// openNow returns the subjects with live server-side connections, and
// how many each has: empty once everything is closed.
func (c *liveCounter) openNow() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for s, n := range c.live {
		if n > 0 {
			out[s] = n
		}
	}
	return out
}
