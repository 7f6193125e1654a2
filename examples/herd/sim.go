package main

import (
	"container/heap"
	"errors"
	"fmt"
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
	MaxAccepts    int   // the most connections accepted in one second
	BrokenHints   int   // clients that came at their reserved slot and were still rejected
	Attempts      int
	Failed        int
	LastConnected time.Duration // -1 when some never got back within Horizon
	Left          int           // clients not connected at Horizon
}

type event struct {
	at     time.Duration
	client int
	slot   int64 // reserved slot (hint mode); -1 when none
}

type queue []event

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

var errRefused = errors.New("connection refused")

// run simulates clients against a server. With hints, the server answers
// each rejected attempt with a Retry-After that reserves the next free
// slot (slots are 1/Rate apart, from the moment it is back). With
// hintsWhileDown it answers so during its restart too, as a planned restart
// that answers 503 with Retry-After does; otherwise attempts during the
// outage are refused without a hint.
func run(name string, s scenario, clients []client, hints, hintsWhileDown bool) result {
	r := result{Name: name, LastConnected: -1}
	q := make(queue, 0, len(clients))
	for i, c := range clients {
		q = append(q, event{at: c.first(), client: i, slot: -1})
	}
	heap.Init(&q)

	slot := time.Second / time.Duration(s.Rate)
	downSlots := int64(s.Down / slot)
	accepted := map[int64]int{} // accepts per second
	reserved := map[int64]int{} // reservations per second not yet used
	nextSlot := downSlots       // next slot to hand out
	secOf := func(slot int64) int64 { return slot / int64(s.Rate) }
	for q.Len() > 0 {
		e := heap.Pop(&q).(event)
		if e.at > s.Horizon {
			r.Left = q.Len() + 1
			return r
		}
		w := int(e.at / s.Window)
		for len(r.Hist) <= w {
			r.Hist = append(r.Hist, 0)
		}
		r.Hist[w]++
		r.Attempts++

		sec := int64(e.at / time.Second)
		onTime := e.slot >= 0 && secOf(e.slot) == sec
		if e.slot >= 0 {
			reserved[secOf(e.slot)]-- // used now, or wasted by a late arrival
		}
		up := e.at >= s.Down
		if up && (onTime || accepted[sec]+reserved[sec] < s.Rate) {
			accepted[sec]++
			r.MaxAccepts = max(r.MaxAccepts, accepted[sec])
			r.LastConnected = e.at
			continue
		}
		r.Failed++
		if onTime && up {
			r.BrokenHints++
		}
		err, next := errRefused, int64(-1)
		if hints && (up || hintsWhileDown) {
			next = max(nextSlot, int64(e.at/slot)+1)
			for sec := secOf(next); accepted[sec]+reserved[sec] >= s.Rate; sec = secOf(next) {
				next = (sec + 1) * int64(s.Rate) // the first slot of the next second
			}
			nextSlot = next + 1
			reserved[secOf(next)]++
			err = backoff.RetryAfter(errors.New("503 service unavailable"), time.Duration(next)*slot-e.at)
		}
		heap.Push(&q, event{at: e.at + clients[e.client].failed(err, e.at), client: e.client, slot: next})
	}
	return r
}

// clientsFor builds N clients of one kind, each with its own seed.
func clientsFor(s scenario, strategy backoff.Strategy, usePolicy bool) ([]client, error) {
	out := make([]client, s.N)
	for i := range out {
		cfg := backoff.Config{Strategy: strategy, Base: s.Base, Cap: s.Cap, Seed: s.Seed*1_000_003 + uint64(i) + 1}
		if usePolicy {
			p, err := policy.New(policy.Config{Backoff: cfg})
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

// simulateAll runs every row of the table.
func simulateAll(s scenario) ([]result, error) {
	type row struct {
		name           string
		strategy       backoff.Strategy
		policy, hints  bool
		hintsWhileDown bool
	}
	rows := []row{
		{"no jitter", backoff.Exponential, false, false, false},
		{"full jitter", backoff.Full, false, false, false},
		{"equal jitter", backoff.Equal, false, false, false},
		{"decorrelated", backoff.Decorrelated, false, false, false},
		{"redial policy", backoff.Decorrelated, true, false, false},
		{"redial + hints", backoff.Decorrelated, true, true, false},
		{"redial + planned hints", backoff.Decorrelated, true, true, true},
	}
	var out []result
	for i, r := range rows {
		if i == 4 { // the reference row, before redial's own
			out = append(out, run("gRPC (1.6x, ±20%)", s, grpcClients(s), false, false))
		}
		cs, err := clientsFor(s, r.strategy, r.policy)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		out = append(out, run(r.name, s, cs, r.hints, r.hintsWhileDown))
	}
	return out, nil
}
