package chaos

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// faultKind is one kind of fault the schedule injects.
type faultKind int

const (
	faultResetPeer     faultKind = iota // reset_peer toxic: RST on the next data
	faultTimeout                        // timeout toxic: nothing passes, then the connection is closed
	faultLatency                        // latency toxic beyond ConnectTimeout, both directions
	faultBandwidth                      // bandwidth toxic at rate 0: everything stalls, nothing is lost
	faultDisable                        // the proxy disabled (listener and connections closed), then enabled
	faultServerRestart                  // a server stopped, then started on the same port
	faultPGRestart                      // pg_ctl restart, fast or immediate
	numFaultKinds
)

var faultNames = [numFaultKinds]string{"reset_peer", "timeout", "latency", "bandwidth", "disable", "server_restart", "pg_restart"}

func (k faultKind) String() string { return faultNames[k] }

// plannedFault is one fault of the schedule.
type plannedFault struct {
	at        time.Duration // after the start of the fault phase
	kind      faultKind
	target    int           // the subject (proxy faults) or the server (server_restart)
	hold      time.Duration // how long it stays before it is removed
	param     time.Duration // latency: the delay; timeout: the toxic's own timeout
	immediate bool          // pg_restart: immediate mode instead of fast
}

func (f plannedFault) String() string {
	return fmt.Sprintf("%v %v target=%d hold=%v param=%v immediate=%v", f.at, f.kind, f.target, f.hold, f.param, f.immediate)
}

// planSize is what a schedule can aim at.
type planSize struct {
	subjects, servers int
	pg                bool // PostgreSQL restarts
}

// Injection times and holds.
const (
	gapMin, gapMax     = 100 * time.Millisecond, 500 * time.Millisecond // between two faults
	pgFirstMin         = 1500 * time.Millisecond
	pgFirstMax         = 3 * time.Second
	pgGapMin, pgGapMax = 4 * time.Second, 7 * time.Second // between two PostgreSQL restarts
)

// plan returns the fault schedule of a run: a pure function of its
// arguments, so that a seed names one schedule. Every 100-500ms a fault
// on a random subject's proxy or a server restart; PostgreSQL restarts
// from a stream of their own, 4-7s apart.
func plan(seed uint64, d time.Duration, size planSize) []plannedFault {
	r := rand.New(rand.NewPCG(seed, 0x6368616f73)) // "chaos"
	var out []plannedFault
	for at := between(r, gapMin, gapMax); at < d; at += between(r, gapMin, gapMax) {
		f := plannedFault{at: at, target: r.IntN(size.subjects)}
		switch x := r.IntN(100); {
		case x < 20:
			f.kind, f.hold = faultResetPeer, between(r, 100*time.Millisecond, 600*time.Millisecond)
		case x < 36:
			f.kind, f.hold = faultTimeout, between(r, 300*time.Millisecond, 1200*time.Millisecond)
			f.param = between(r, f.hold/4, f.hold/2) // shorter than hold: see faults_test.go
		case x < 52:
			f.kind, f.hold = faultLatency, between(r, 500*time.Millisecond, 2*time.Second)
			f.param = connectTimeout + between(r, 100*time.Millisecond, 600*time.Millisecond)
		case x < 68:
			f.kind, f.hold = faultBandwidth, between(r, 200*time.Millisecond, 1500*time.Millisecond)
		case x < 84 || size.servers == 0:
			f.kind, f.hold = faultDisable, between(r, 100*time.Millisecond, time.Second)
		default:
			f.kind, f.hold = faultServerRestart, between(r, 100*time.Millisecond, time.Second)
			f.target = r.IntN(size.servers)
		}
		out = append(out, f)
	}
	if size.pg {
		rp := rand.New(rand.NewPCG(seed, 0x706f737467726573)) // "postgres"
		for at := between(rp, pgFirstMin, pgFirstMax); at < d; at += between(rp, pgGapMin, pgGapMax) {
			out = append(out, plannedFault{at: at, kind: faultPGRestart, immediate: rp.IntN(3) == 0})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// between returns a duration in [lo, hi).
func between(r *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)))
}
