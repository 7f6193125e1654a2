package main

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// The ejection scenario (-eject): N clients over 3 replicas that each
// accept at most K (-rate) new connections a second (K/10 per 100 ms
// window, the excess refused without a hint). Every connection lives an
// exponential time of mean Life, then is lost and the client reconnects
// by internal/policy's Policy, the code a Supervisor with Endpoints runs.
// From Bad for Sick, replica 0 is sick: its connections break and every
// attempt on it fails, at once or after DeadTimeout (it accepts TCP and
// never answers); then it is healthy again. Each row is one ejection
// setting (EjectAfter, EjectBase, EjectCap).
//
// Reported: attempts on the sick replica while it is sick, failed
// attempts, the time from a loss to the next connection while it is sick
// (mean and 99th percentile), when replica 0 takes its first connection
// after it is healthy again, its share of the clients at the end, and how
// often an overloaded survivor was ejected.
type ejectScenario struct {
	N, Rate           int
	Base, Cap         time.Duration
	Life              time.Duration
	Bad, Sick, Until  time.Duration
	DeadTimeout       time.Duration
	Seed              uint64
	Window            time.Duration
	EjectAfter        int
	EjectBase, EjectC time.Duration
}

// ejectResult is one row's run.
type ejectResult struct {
	Name     string  `json:"name"`
	After    int     `json:"eject_after"`
	BaseS    float64 `json:"eject_base_s"`
	CapS     float64 `json:"eject_cap_s"`
	Wasted   int     `json:"wasted"`      // attempts on replica 0 while sick
	Failed   int     `json:"failed"`      // every failed attempt
	GapMean  float64 `json:"gap_mean_s"`  // loss to connection, losses while sick
	GapP99   float64 `json:"gap_p99_s"`   // the same, 99th percentile
	BackS    float64 `json:"back_s"`      // replica 0's first connection after it healed; -1: none
	Share0   float64 `json:"share0"`      // replica 0's share of the connected clients at the end
	SurvivEj int     `json:"survivor_ej"` // ejections of replicas 1 and 2
	// RebalanceS is how long after replica 0 healed it held 30% of the
	// connected clients again; -1: not within the horizon.
	RebalanceS float64 `json:"rebalance_s"`
	Connected  int     `json:"connected"` // clients connected at the end
}

type ejEvent struct {
	at     time.Duration
	client int
	lost   bool // a loss of the connection on endpoint; else an attempt on it
	ep     int
	gen    int // the connection's generation: a loss of an older one is void
}

type ejQueue []ejEvent

func (q ejQueue) Len() int           { return len(q) }
func (q ejQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q ejQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *ejQueue) Push(x any)        { *q = append(*q, x.(ejEvent)) }
func (q *ejQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// runEject simulates one setting.
func runEject(name string, s ejectScenario) (ejectResult, error) {
	r := ejectResult{Name: name, After: s.EjectAfter, BaseS: s.EjectBase.Seconds(), CapS: s.EjectC.Seconds(), BackS: -1, RebalanceS: -1}
	const reps = 3
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	life := func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(s.Life)) }
	ps := make([]*policy.Policy, s.N)
	for i := range ps {
		p, err := policy.New(policy.Config{
			Backoff:   backoff.Config{Base: s.Base, Cap: s.Cap, Seed: s.Seed*1_000_003 + uint64(i) + 1},
			Endpoints: reps, EjectAfter: s.EjectAfter, EjectBase: s.EjectBase, EjectCap: s.EjectC,
		})
		if err != nil {
			return r, err
		}
		ps[i] = p
	}
	on := make([]int, s.N)  // the endpoint of a client's connection; -1: none
	gen := make([]int, s.N) // its generation
	since := make([]time.Duration, s.N)
	lostAt := make([]time.Duration, s.N)
	perWindow := max(1, int(float64(s.Rate)*s.Window.Seconds()))
	accepted := map[[2]int]int{}
	ejections := make([]int, s.N*reps) // the last Ejections seen per client and replica
	var gaps []float64
	q := make(ejQueue, 0, s.N)
	for c := range s.N {
		on[c], since[c] = c%reps, 0
		q = append(q, ejEvent{at: life(), client: c, lost: true, ep: c % reps})
	}
	heap.Init(&q)
	sick := func(at time.Duration) bool { return at >= s.Bad && at < s.Bad+s.Sick }
	sickBroken := false
	n0, conns := 0, s.N // connections on replica 0, and in all
	count := func(ep, d int) {
		conns += d
		if ep == 0 {
			n0 += d
		}
	}
	for c := range s.N {
		if on[c] == 0 {
			n0++
		}
	}
	decide := func(c int, j int, d policy.Delay, at time.Duration) {
		heap.Push(&q, ejEvent{at: at + d.Wait, client: c, ep: j})
	}
	for q.Len() > 0 {
		ev := heap.Pop(&q).(ejEvent)
		if !sickBroken && ev.at >= s.Bad { // replica 0 turns sick: its connections break
			sickBroken = true
			heap.Push(&q, ev)
			for c := range s.N {
				if on[c] == 0 {
					gen[c]++
					heap.Push(&q, ejEvent{at: s.Bad, client: c, lost: true, ep: 0, gen: gen[c]})
				}
			}
			continue
		}
		if ev.at > s.Until {
			break
		}
		c, p, at := ev.client, ps[ev.client], ev.at
		now := epoch.Add(at)
		if ev.lost {
			if ev.gen != gen[c] || on[c] != ev.ep {
				continue
			}
			count(on[c], -1)
			on[c], lostAt[c] = -1, at
			j, d := p.Lost(ev.ep, at-since[c], errReset, now)
			decide(c, j, d, at)
			continue
		}
		j := ev.ep
		if j == 0 && sick(at) {
			r.Wasted++
			r.Failed++
			at += s.DeadTimeout
			k, d := p.Failed(0, errRefused, epoch.Add(at))
			decide(c, k, d, at)
			continue
		}
		w := [2]int{j, int(at / s.Window)}
		if accepted[w] >= perWindow {
			r.Failed++
			k, d := p.Failed(j, errRefused, now)
			if e := p.Endpoint(j, now); j != 0 && e.Ejections > ejections[c*reps+j] {
				r.SurvivEj++
			}
			ejections[c*reps+j] = p.Endpoint(j, now).Ejections
			decide(c, k, d, at)
			continue
		}
		accepted[w]++
		p.Connected(j)
		ejections[c*reps+j] = 0
		if sick(lostAt[c]) {
			gaps = append(gaps, (at - lostAt[c]).Seconds())
		}
		if j == 0 && at >= s.Bad+s.Sick && r.BackS < 0 {
			r.BackS = (at - s.Bad - s.Sick).Seconds()
		}
		on[c], since[c] = j, at
		count(j, 1)
		if heal := s.Bad + s.Sick; at >= heal && r.RebalanceS < 0 && 10*n0 >= 3*conns {
			r.RebalanceS = (at - heal).Seconds()
		}
		gen[c]++
		heap.Push(&q, ejEvent{at: at + life(), client: c, lost: true, ep: j, gen: gen[c]})
	}
	r.Connected = conns
	if conns > 0 {
		r.Share0 = float64(n0) / float64(conns)
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		sum := 0.0
		for _, g := range gaps {
			sum += g
		}
		r.GapMean = sum / float64(len(gaps))
		r.GapP99 = gaps[min(len(gaps)-1, int(math.Ceil(0.99*float64(len(gaps))))-1)]
	}
	return r, nil
}

// ejectRows are the sweep: EjectAfter over off, 1, 2, 3, 5, 10 at the
// default base and cap; then EjectBase, then EjectCap, around the defaults.
func ejectRows() []ejectScenario {
	var out []ejectScenario
	for _, a := range []int{-1, 1, 2, 3, 5, 10} {
		out = append(out, ejectScenario{EjectAfter: a, EjectBase: policy.DefaultEjectBase, EjectC: policy.DefaultEjectCap})
	}
	for _, b := range []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, time.Minute} {
		out = append(out, ejectScenario{EjectAfter: policy.DefaultEjectAfter, EjectBase: b, EjectC: max(b, policy.DefaultEjectCap)})
	}
	for _, c := range []time.Duration{30 * time.Second, 2 * time.Minute, 5 * time.Minute} {
		out = append(out, ejectScenario{EjectAfter: policy.DefaultEjectAfter, EjectBase: policy.DefaultEjectBase, EjectC: c})
	}
	return out
}

func ejectName(s ejectScenario) string {
	if s.EjectAfter < 0 {
		return "no ejection"
	}
	n := fmt.Sprintf("after %d, base %v, cap %v", s.EjectAfter, s.EjectBase, s.EjectC)
	if s.EjectAfter == policy.DefaultEjectAfter && s.EjectBase == policy.DefaultEjectBase && s.EjectC == policy.DefaultEjectCap {
		n += " (default)"
	}
	return n
}

// simulateEject runs every row of the sweep on base.
func simulateEject(base ejectScenario) ([]ejectResult, error) {
	var out []ejectResult
	for _, row := range ejectRows() {
		s := base
		s.EjectAfter, s.EjectBase, s.EjectC = row.EjectAfter, row.EjectBase, row.EjectC
		r, err := runEject(ejectName(row), s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func reportEject(w io.Writer, s ejectScenario, rs []ejectResult) {
	dead := "fails at once"
	if s.DeadTimeout > 0 {
		dead = fmt.Sprintf("times out after %v", s.DeadTimeout)
	}
	fmt.Fprintf(w, "herd eject: N=%d over 3 replicas of %d/s each; connections live exp(%v); replica 0 sick from %v for %v (every attempt %s), horizon %v; base %v, cap %v, seed %d\n\n",
		s.N, s.Rate, s.Life, s.Bad, s.Sick, dead, s.Until, s.Base, s.Cap, s.Seed)
	fmt.Fprintf(w, "| %-38s | %8s | %8s | %9s | %8s | %9s | %9s | %10s |\n", "ejection", "on sick", "failed", "gap mean", "gap p99", "back", "rebalance", "survivors")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|%s|%s|\n", dash(40), dash(10), dash(10), dash(11), dash(10), dash(11), dash(11), dash(12))
	for _, r := range rs {
		back := "never"
		if r.BackS >= 0 {
			back = fmt.Sprintf("%.1fs", r.BackS)
		}
		reb := "never"
		if r.RebalanceS >= 0 {
			reb = fmt.Sprintf("%.1fs", r.RebalanceS)
		}
		fmt.Fprintf(w, "| %-38s | %8d | %8d | %8.2fs | %7.2fs | %9s | %9s | %10d |\n", r.Name, r.Wasted, r.Failed, r.GapMean, r.GapP99, back, reb, r.SurvivEj)
	}
}

func writeEjectJSON(w io.Writer, rs []ejectResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rs)
}
