package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// scenario is what every strategy faces: N clients lose their connection
// at t=0, the server is down for Down and then accepts at most Rate new
// connections in each second.
type scenario struct {
	N       int
	Down    time.Duration
	Rate    int // accepts per second
	Base    time.Duration
	Cap     time.Duration
	Seed    uint64
	Window  time.Duration // histogram bucket: 100ms
	Horizon time.Duration // give up simulating after this long
	// Service is how many handshakes a second the server (and the
	// machine the clients run on) can process at most, once it is up:
	// the ones that arrive faster wait their turn, first come first
	// served, and the server sees them later. 0 means no limit: every
	// attempt is answered the instant it is made.
	Service int
	// AgeBound is the redial rows' internal/policy AgeBound: 0 its
	// default, negative none.
	AgeBound float64
	// queueAll sends every attempt through the event queue, the outage's
	// too (tests compare it with the shortcut).
	queueAll bool
}

// ideal is the earliest the last client can be back: D + N/K.
func (s scenario) ideal() time.Duration {
	return s.Down + time.Duration(float64(s.N)/float64(s.Rate)*float64(time.Second))
}

// client decides its own delays; attempt results come from the server.
type client interface {
	first() time.Duration                             // the wait before the first attempt after the loss
	failed(err error, at time.Duration) time.Duration // the wait after an attempt failed at virtual time at
}

// rawClient is a plain reconnect loop over one backoff strategy: it retries
// at once after the loss, then waits Next() after each failure.
type rawClient struct{ b *backoff.Backoff }

func (c rawClient) first() time.Duration                      { return 0 }
func (c rawClient) failed(error, time.Duration) time.Duration { return c.b.Next() }

// policyClient runs the supervisor's own Policy: the loss of a long-lived
// connection, then Failed for each failed attempt (hints included).
type policyClient struct{ p *policy.Policy }

func (c policyClient) first() time.Duration {
	_, d := c.p.Lost(0, time.Hour, errors.New("connection reset"), epoch)
	return d.Wait
}

func (c policyClient) failed(err error, at time.Duration) time.Duration {
	_, d := c.p.Failed(0, err, epoch.Add(at))
	return d.Wait
}

// epoch is virtual time 0 as a time.Time, for the Policy's clock.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// result is one strategy's run.
type result struct {
	Name          string
	Hist          []int // attempts per Window
	Admits        []int // connections taken per Window
	MaxAccepts    int   // the most connections accepted in one second
	BrokenHints   int   // clients that came at their reserved slot and were still rejected
	Early         int   // attempts made before their reserved slot (a hint longer than MaxHint) and told to wait on
	Attempts      int
	Failed        int
	FailedUp      int           // failed attempts once the server was up: handshakes refused
	LastConnected time.Duration // -1 when some never got back within Horizon
	Left          int           // clients not connected at Horizon
}

type event struct {
	at     time.Duration
	client int
	slot   int64 // reserved slot (hint mode); -1 when none
}

var errRefused = errors.New("connection refused")

// run simulates clients against a server. With hints, the server answers
// each rejected attempt with a Retry-After that reserves the next free
// slot (slots are 1/Rate apart, from the moment it is back); a holder that
// comes before its slot (its hint was longer than MaxHint) keeps it and is
// told the rest of the wait, as a waiting room that knows its clients
// does, unless there is room at once. With hintsWhileDown it answers so
// during its restart too, as a planned restart that answers 503 with
// Retry-After does; otherwise attempts during the outage are refused
// without a hint.
func run(name string, s scenario, clients []client, hints, hintsWhileDown bool) result {
	r := result{Name: name, LastConnected: -1}
	q := newCalendar()
	for i, c := range clients {
		at := c.first()
		if !hintsWhileDown && !s.queueAll {
			// Until the server is back every attempt is refused without a
			// hint, whatever the other clients do: each client's attempts
			// until then are made here, one client after the other (the
			// same draws as through the queue, in a cache-friendly order:
			// a million clients in seconds).
			for at < s.Down && at <= s.Horizon {
				r.attempt(at, s.Window)
				r.Failed++
				at += c.failed(errRefused, at)
			}
		}
		q.push(event{at: at, client: i, slot: -1})
	}

	slot := time.Second / time.Duration(s.Rate)
	downSlots := int64(s.Down / slot)
	seconds := int64(s.Horizon/time.Second) + 2
	accepted := make([]int, seconds) // accepts per second
	reserved := make([]int, seconds) // reservations per second not yet used
	nextSlot := downSlots            // next slot to hand out
	secOf := func(slot int64) int64 { return min(slot/int64(s.Rate), seconds-1) }
	var busy time.Duration // with Service: until when the server is busy
	for q.len() > 0 {
		e := q.pop()
		if e.at > s.Horizon {
			r.Left = q.len() + 1
			return r
		}
		if s.Service > 0 && e.at >= s.Down {
			e.at = max(e.at, busy) // when the server gets to it
			busy = e.at + time.Second/time.Duration(s.Service)
		}
		r.attempt(e.at, s.Window)

		sec := int64(e.at / time.Second)
		up := e.at >= s.Down
		if e.slot >= 0 && secOf(e.slot) > sec && !(up && accepted[sec]+reserved[sec] < s.Rate) {
			r.Failed++
			r.Early++
			if up {
				r.FailedUp++
			}
			err := backoff.RetryAfter(errors.New("503 service unavailable"), time.Duration(e.slot)*slot-e.at)
			q.push(event{at: e.at + clients[e.client].failed(err, e.at), client: e.client, slot: e.slot})
			continue
		}
		onTime := e.slot >= 0 && secOf(e.slot) == sec
		if e.slot >= 0 {
			reserved[secOf(e.slot)]-- // used now, or wasted by a late arrival, or freed by an early one let in
		}
		if up && (onTime || accepted[sec]+reserved[sec] < s.Rate) {
			accepted[sec]++
			r.admit(e.at, s.Window)
			r.MaxAccepts = max(r.MaxAccepts, accepted[sec])
			r.LastConnected = e.at
			continue
		}
		r.Failed++
		if up {
			r.FailedUp++
		}
		if onTime && up {
			r.BrokenHints++
		}
		err, next := errRefused, int64(-1)
		if hints && (up || hintsWhileDown) {
			next = max(nextSlot, int64(e.at/slot)+1)
			for sec := secOf(next); accepted[sec]+reserved[sec] >= s.Rate && sec < seconds-1; sec = secOf(next) {
				next = (sec + 1) * int64(s.Rate) // the first slot of the next second
			}
			nextSlot = next + 1
			reserved[secOf(next)]++
			err = backoff.RetryAfter(errors.New("503 service unavailable"), time.Duration(next)*slot-e.at)
		}
		q.push(event{at: e.at + clients[e.client].failed(err, e.at), client: e.client, slot: next})
	}
	return r
}

// attempt counts an attempt at virtual time at.
func (r *result) attempt(at, window time.Duration) {
	w := int(at / window)
	for len(r.Hist) <= w {
		r.Hist = append(r.Hist, 0)
	}
	r.Hist[w]++
	r.Attempts++
}

// clientsFor builds N clients of one kind, each with its own seed.
func clientsFor(s scenario, strategy backoff.Strategy, usePolicy bool) ([]client, error) {
	out := make([]client, s.N)
	for i := range out {
		cfg := backoff.Config{Strategy: strategy, Base: s.Base, Cap: s.Cap, Seed: s.Seed*1_000_003 + uint64(i) + 1}
		if usePolicy {
			p, err := policy.New(policy.Config{Backoff: cfg, AgeBound: s.AgeBound})
			if err != nil {
				return nil, err
			}
			out[i] = policyClient{p}
			continue
		}
		b, err := backoff.New(cfg)
		if err != nil {
			return nil, err
		}
		out[i] = rawClient{b}
	}
	return out, nil
}

// simulateAll runs every row of the table, as many at a time as there
// are CPUs.
func simulateAll(s scenario) ([]result, error) {
	type row struct {
		name           string
		strategy       backoff.Strategy
		policy, hints  bool
		hintsWhileDown bool
		planned        bool                    // package admit's Planner, once the server is back
		model          func(scenario) []client // a reference model, not redial code
	}
	rows := []row{
		{name: "no jitter", strategy: backoff.Exponential},
		{name: "full jitter", strategy: backoff.Full},
		{name: "equal jitter", strategy: backoff.Equal},
		{name: "decorrelated", strategy: backoff.Decorrelated},
		{name: "cenkalti v5", model: cenkaltiClients}, // reference rows, before redial's own
		{name: "gRPC (1.6x, ±20%)", model: grpcClients},
		{name: "redial policy", strategy: backoff.Decorrelated, policy: true},
		{name: "redial + hints", strategy: backoff.Decorrelated, policy: true, hints: true},
		{name: "redial + planned hints", strategy: backoff.Decorrelated, policy: true, planned: true},
	}
	out := make([]result, len(rows))
	errs := make([]error, len(rows))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, r := range rows {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if r.model != nil {
				out[i] = run(r.name, s, r.model(s), false, false)
				return
			}
			cs, err := clientsFor(s, r.strategy, r.policy)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", r.name, err)
				return
			}
			if r.planned {
				out[i], errs[i] = runPlanned(r.name, s, cs)
				return
			}
			out[i] = run(r.name, s, cs, r.hints, r.hintsWhileDown)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}
