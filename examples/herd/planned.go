package main

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/admit"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/statuscode"
)

var err503 = errors.New("503 service unavailable")

// runPlanned simulates clients against a server that is away for Down
// (every attempt refused without a hint) and then admits with package
// admit's own Planner at Rate: an admitted attempt is taken after the
// Planner's wait (held for its slot), a refused one is answered with the
// Planner's Retry-After, which each client turns into its wait by
// statuscode.Spread, the rule redial's HTTP adapters follow (its draws
// seeded here, so that a run is reproducible).
func runPlanned(name string, s scenario, clients []client) (result, error) {
	r := result{Name: name, LastConnected: -1}
	p, err := admit.New(admit.Config{Rate: float64(s.Rate)})
	if err != nil {
		return r, err
	}
	draws := rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15)
	q := newCalendar()
	for i, c := range clients {
		at := c.first()
		for at < s.Down && at <= s.Horizon { // refused without a hint, one client after the other (see run)
			r.attempt(at, s.Window)
			r.Failed++
			at += c.failed(errRefused, at)
		}
		q.push(event{at: at, client: i, slot: -1})
	}
	accepted := map[int64]int{}
	var busy time.Duration
	for q.len() > 0 {
		e := q.pop()
		if e.at > s.Horizon {
			r.Left = q.len() + 1
			return r, nil
		}
		if s.Service > 0 {
			e.at = max(e.at, busy)
			busy = e.at + time.Second/time.Duration(s.Service)
		}
		r.attempt(e.at, s.Window)
		wait, ok := p.Plan(epoch.Add(e.at))
		if ok {
			in := e.at + wait
			sec := int64(in / time.Second)
			accepted[sec]++
			r.MaxAccepts = max(r.MaxAccepts, accepted[sec])
			r.admit(in, s.Window)
			r.LastConnected = max(r.LastConnected, in)
			continue
		}
		r.Failed++
		r.FailedUp++
		err := backoff.RetryAfter(err503, statuscode.Spread(wait, draws.Uint64()))
		q.push(event{at: e.at + clients[e.client].failed(err, e.at), client: e.client, slot: -1})
	}
	return r, nil
}

// admit counts a connection taken at virtual time at.
func (r *result) admit(at, window time.Duration) {
	w := int(at / window)
	for len(r.Admits) <= w {
		r.Admits = append(r.Admits, 0)
	}
	r.Admits[w]++
}
