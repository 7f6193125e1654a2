package main

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/policy"
)

// The replica scenario (-replicas R): N clients spread evenly over R
// replicas of one service, each of which accepts at most K (-rate) new
// connections a second, K/10 in each 100 ms window (a replica's handshake
// capacity is a rate: unlike the single-server scenario's, a survivor's
// is not saved up while it waits), and refuses the excess without a hint;
// at t=0 replica 0 dies for good
// and its clients lose their connections (a refused dial to it fails at
// once). The clients of the other replicas stay where they are. Each row
// is one way to find a survivor:
//   - redial failover (spread S): internal/policy's Policy with R endpoints
//     and FailoverSpread S, the code a Supervisor with Endpoints runs: the
//     next endpoint after rand[0, S), the backoff once per round;
//   - no failover: one backoff over the whole list, walked from the top
//     after each wait (pgx's host list before redial: the dead replica
//     first, then the others at once);
//   - the same policy with no spread: the next endpoint at once.
//
// Reported: the peak attempts in one 100 ms window on each survivor (over
// its capacity per window), failed attempts, and when the last displaced
// client is back.

// replicaScenario is the replica scenario's parameters.
type replicaScenario struct {
	N, Replicas, Rate int
	Base, Cap         time.Duration
	Seed              uint64
	Window, Horizon   time.Duration
	// DeadTimeout is how long an attempt on the dead replica takes to
	// fail: 0, refused at once (its host is up, its process gone); more, a
	// host that vanished, whose dials time out (ConnectTimeout).
	DeadTimeout time.Duration
}

// displaced returns how many clients replica 0 held.
func (s replicaScenario) displaced() int { return (s.N + s.Replicas - 1) / s.Replicas }

// ideal is the earliest the last displaced client can be back: the
// survivors together accept (R-1)*K a second.
func (s replicaScenario) ideal() time.Duration {
	return time.Duration(float64(s.displaced()) / float64((s.Replicas-1)*s.Rate) * float64(time.Second))
}

// replicaResult is one row's run.
type replicaResult struct {
	Name     string
	Hist     [][]int // attempts per Window, per replica
	Attempts int     // on every replica, the dead one's included
	Failed   int
	// MaxAccepts is the most connections one survivor accepted in one window.
	MaxAccepts int
	Last       time.Duration // when the last displaced client was back; -1: not all within Horizon
	Left       int
}

// peak returns the busiest window's attempts on replica r.
func (r replicaResult) peak(rep int) int {
	p := 0
	for _, n := range r.Hist[rep] {
		p = max(p, n)
	}
	return p
}

// finder is one displaced client's way to a survivor: lost gives the
// first attempt's endpoint and wait after the loss at t=0; refused the
// next endpoint and wait after endpoint i refused at at. walk says the
// client tries every endpoint from the top at each attempt (no
// failover), so one attempt is a pass over the list.
type finder interface {
	lost() (int, time.Duration)
	refused(i int, at time.Duration) (int, time.Duration)
}

// policyFinder is internal/policy's Policy over the endpoints.
type policyFinder struct{ p *policy.Policy }

var errReset = errors.New("connection reset")

func (f policyFinder) lost() (int, time.Duration) {
	i, d := f.p.Lost(0, time.Hour, errReset, epoch)
	return i, d.Wait
}

func (f policyFinder) refused(i int, at time.Duration) (int, time.Duration) {
	j, d := f.p.Failed(i, errRefused, epoch.Add(at))
	return j, d.Wait
}

type replicaEvent struct {
	at       time.Duration
	client   int
	endpoint int
}

type replicaQueue []replicaEvent

func (q replicaQueue) Len() int           { return len(q) }
func (q replicaQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q replicaQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *replicaQueue) Push(x any)        { *q = append(*q, x.(replicaEvent)) }
func (q *replicaQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// runReplicas simulates the displaced clients, each with its finder. With
// walk, a pass tries the endpoints from the top (0, 1, ...) one after the
// other until one accepts, and only a refusal of the whole pass is
// reported to the finder.
func runReplicas(name string, s replicaScenario, fs []finder, walk bool) replicaResult {
	r := replicaResult{Name: name, Hist: make([][]int, s.Replicas), Last: -1}
	windows := int(s.Horizon/s.Window) + 1
	perWindow := max(1, int(float64(s.Rate)*s.Window.Seconds()))
	accepted := make([][]int, s.Replicas)
	for i := range accepted {
		accepted[i] = make([]int, windows)
	}
	// try is one attempt on endpoint e at at; it reports whether it was accepted.
	try := func(e int, at time.Duration) bool {
		w := int(at / s.Window)
		for len(r.Hist[e]) <= w {
			r.Hist[e] = append(r.Hist[e], 0)
		}
		r.Hist[e][w]++
		r.Attempts++
		if e != 0 && accepted[e][w] < perWindow {
			accepted[e][w]++
			r.MaxAccepts = max(r.MaxAccepts, accepted[e][w])
			return true
		}
		r.Failed++
		return false
	}
	q := make(replicaQueue, 0, len(fs))
	for c, f := range fs {
		e, wait := f.lost()
		q = append(q, replicaEvent{at: wait, client: c, endpoint: e})
	}
	heap.Init(&q)
	for q.Len() > 0 {
		ev := heap.Pop(&q).(replicaEvent)
		if ev.at > s.Horizon {
			r.Left = q.Len() + 1
			r.Last = -1
			return r
		}
		if try(ev.endpoint, ev.at) {
			r.Last = max(r.Last, ev.at)
			continue
		}
		at := ev.at
		if ev.endpoint == 0 {
			at += s.DeadTimeout // the attempt on the dead replica failed only now
		}
		if walk && ev.endpoint < s.Replicas-1 { // the rest of the pass, at once
			heap.Push(&q, replicaEvent{at: at, client: ev.client, endpoint: ev.endpoint + 1})
			continue
		}
		e, wait := fs[ev.client].refused(ev.endpoint, at)
		if walk {
			e = 0 // the next pass starts from the top
		}
		heap.Push(&q, replicaEvent{at: at + wait, client: ev.client, endpoint: e})
	}
	return r
}

// replicaRow is one row of the replica table: a name, the spread (for the
// policy rows), and whether it walks the list.
type replicaRow struct {
	name   string
	spread time.Duration // FailoverSpread; 1ns: none
	walk   bool          // no failover: one backoff, the list from the top
}

// replicaRows are the rows: no failover, the policy without spread, and
// the policy over a range of spreads (Base/2 is FailoverSpread's default).
func replicaRows(base time.Duration) []replicaRow {
	rows := []replicaRow{
		{name: "no failover (list from the top)", walk: true},
		{name: "failover, no spread", spread: 1},
	}
	for _, d := range []int{16, 8, 4, 2, 1} {
		name := fmt.Sprintf("failover, spread Base/%d", d)
		if d == 1 {
			name = "failover, spread Base"
		}
		if d == 2 {
			name += " (default)"
		}
		rows = append(rows, replicaRow{name: name, spread: base / time.Duration(d)})
	}
	return rows
}

// simulateReplicas runs every row of the replica table.
func simulateReplicas(s replicaScenario) ([]replicaResult, error) {
	var out []replicaResult
	for _, row := range replicaRows(s.Base) {
		fs := make([]finder, s.displaced())
		for i := range fs {
			cfg := policy.Config{
				Backoff:        backoff.Config{Base: s.Base, Cap: s.Cap, Seed: s.Seed*1_000_003 + uint64(i) + 1},
				Endpoints:      s.Replicas,
				FailoverSpread: row.spread,
			}
			if row.walk {
				cfg.Endpoints, cfg.FailoverSpread = 1, 0 // one backoff over the whole list
			}
			p, err := policy.New(cfg)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", row.name, err)
			}
			fs[i] = policyFinder{p}
		}
		out = append(out, runReplicas(row.name, s, fs, row.walk))
	}
	return out, nil
}

// reportReplicas prints the replica table.
func reportReplicas(w io.Writer, s replicaScenario, rs []replicaResult) {
	capacity := float64(s.Rate) * s.Window.Seconds()
	dead := "refuses at once"
	if s.DeadTimeout > 0 {
		dead = fmt.Sprintf("dials to it time out after %v", s.DeadTimeout)
	}
	fmt.Fprintf(w, "herd replicas: N=%d over %d replicas, replica 0 dies at 0s (%d clients displaced; %s); each accepts %d/s (%.0f per %v window); base %v, cap %v, seed %d; ideal finish %v\n\n",
		s.N, s.Replicas, s.displaced(), dead, s.Rate, capacity, s.Window, s.Base, s.Cap, s.Seed, s.ideal().Round(time.Millisecond))
	fmt.Fprintf(w, "| %-36s |", "strategy")
	for rep := 1; rep < s.Replicas; rep++ {
		fmt.Fprintf(w, " %16s |", fmt.Sprintf("peak r%d (/cap)", rep))
	}
	fmt.Fprintf(w, " %8s | %8s | %10s | %7s |\n", "attempts", "failed", "last back", "/ideal")
	fmt.Fprintf(w, "|%s|", dash(38))
	for rep := 1; rep < s.Replicas; rep++ {
		fmt.Fprintf(w, "%s|", dash(18))
	}
	fmt.Fprintf(w, "%s|%s|%s|%s|\n", dash(10), dash(10), dash(12), dash(9))
	for _, r := range rs {
		fmt.Fprintf(w, "| %-36s |", r.Name)
		for rep := 1; rep < s.Replicas; rep++ {
			p := r.peak(rep)
			fmt.Fprintf(w, " %16s |", fmt.Sprintf("%d (%.1fx)", p, float64(p)/capacity))
		}
		last, ratio := "never", "-"
		if r.Left == 0 {
			last = r.Last.Round(time.Millisecond).String()
			ratio = fmt.Sprintf("%.2f", float64(r.Last)/float64(s.ideal()))
		}
		fmt.Fprintf(w, " %8d | %8d | %10s | %7s |\n", r.Attempts, r.Failed, last, ratio)
	}
	fmt.Fprintf(w, "\nWhy the default spread can peak higher than no failover: here the dead replica refuses at once, so the loop without failover loses only one refused dial, and its first retry, rand[0, Base), spreads the fleet over Base, twice the default FailoverSpread (Base/2); failover pays when dials to the dead replica time out (-dead-timeout 10s).\n")
}

func (s replicaScenario) validate() error {
	if s.Replicas < 2 || s.Replicas > 100 {
		return fmt.Errorf("-replicas %d must be in [2, 100]", s.Replicas)
	}
	return nil
}

// writeReplicasJSON writes the replica rows as JSON, for benchreport.
func writeReplicasJSON(w io.Writer, s replicaScenario, rs []replicaResult) error {
	type jrow struct {
		Name     string    `json:"name"`
		Peaks    []int     `json:"peaks"`     // per survivor (replicas 1..R-1): attempts in the busiest window
		PeakCap  []float64 `json:"peaks_cap"` // the same over the capacity per window
		Attempts int       `json:"attempts"`
		Failed   int       `json:"failed"`
		LastBack float64   `json:"last_back_s"` // -1: not all back
	}
	out := struct {
		N         int     `json:"n"`
		Replicas  int     `json:"replicas"`
		Rate      int     `json:"rate"`
		Displaced int     `json:"displaced"`
		IdealS    float64 `json:"ideal_s"`
		Rows      []jrow  `json:"rows"`
	}{N: s.N, Replicas: s.Replicas, Rate: s.Rate, Displaced: s.displaced(), IdealS: s.ideal().Seconds()}
	capacity := float64(s.Rate) * s.Window.Seconds()
	for _, r := range rs {
		j := jrow{Name: r.Name, Attempts: r.Attempts, Failed: r.Failed, LastBack: -1}
		for rep := 1; rep < s.Replicas; rep++ {
			j.Peaks = append(j.Peaks, r.peak(rep))
			j.PeakCap = append(j.PeakCap, float64(r.peak(rep))/capacity)
		}
		if r.Left == 0 {
			j.LastBack = r.Last.Seconds()
		}
		out.Rows = append(out.Rows, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
