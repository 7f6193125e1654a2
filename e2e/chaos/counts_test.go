package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// summary is what a run counted.
type summary struct {
	cfg         config
	faults      [numFaultKinds]int
	skipped     int    // planned faults whose target still had one
	reconnects  uint64 // connections after each subject's first
	messages    int64  // feed messages, notifications, query results received
	covered     int64  // numbers skipped under a reconnect or ErrMissed (allowed)
	replayed    int64  // numbers received again (replays, ambiguous NOTIFYs)
	lost        int64  // numbers skipped without either: violations
	opened      int    // server-side connections the WebSocket servers accepted
	leakedConns int
	leakedGos   int
	violations  int64
	rt          *rtStats
	recovered   time.Duration // from the last fault's end to every subject recovered
	peakGos     int64
	elapsed     time.Duration
	byKind      map[string]*kindCounts
	phases      []string // how long each phase took
}

// kindCounts is what the subjects of one kind counted.
type kindCounts struct {
	subjects   int
	reconnects uint64
	messages   int64
	faults     int // faults that touched them, PostgreSQL restarts and server restarts included
}

func (s *summary) faultTotal() int {
	n := 0
	for _, c := range s.faults {
		n += c
	}
	return n
}

// line is the one line of counts every run ends with.
func (s *summary) line() string {
	return fmt.Sprintf("chaos: seed=%d faults=%d reconnects=%d messages=%d lost=%d leaked=%d violations=%d",
		s.cfg.seed, s.faultTotal(), s.reconnects, s.messages, s.lost, s.leakedConns+s.leakedGos, s.violations)
}

// details says more, for a reader of the log.
func (s *summary) details() string {
	var kinds []string
	for k, n := range s.faults {
		kinds = append(kinds, fmt.Sprintf("%v=%d", faultKind(k), n))
	}
	rt := s.rt
	if rt == nil {
		rt = &rtStats{}
	}
	return fmt.Sprintf("chaos: faults %s (skipped %d, target busy); round trips ok=%d slowest=%v (%s), not checked: down=%d faulted=%d older=%d other=%d; "+
		"recovered %v after the last fault; numbers skipped under a reconnect or ErrMissed=%d, received again=%d; "+
		"server-side connections opened=%d; leaked connections=%d goroutines=%d; peak goroutines=%d; took %v (%s)",
		strings.Join(kinds, " "), s.skipped, rt.ok.Load(), rt.slowest.Round(time.Millisecond), rt.slowOne,
		rt.down.Load(), rt.faulted.Load(), rt.older.Load(), rt.other.Load(),
		s.recovered.Round(time.Millisecond), s.covered, s.replayed, s.opened, s.leakedConns, s.leakedGos, s.peakGos,
		s.elapsed.Round(100*time.Millisecond), strings.Join(s.phases, ", "))
}

// kinds says, per kind of subject, how many there were, the faults that
// touched them, their reconnects and what they received.
func (s *summary) kinds() string {
	var parts []string
	for _, kind := range []string{"ws", "tcp", "rpc", "listener", "pool"} {
		if k := s.byKind[kind]; k != nil {
			parts = append(parts, fmt.Sprintf("%s: %d subjects, %d faults, %d reconnects, %d messages", kind, k.subjects, k.faults, k.reconnects, k.messages))
		}
	}
	return "chaos: " + strings.Join(parts, "; ")
}

// announce logs line and prints it to stdout, so that it shows in go test
// -v and in CI logs.
func announce(t testing.TB, line string) {
	t.Helper()
	t.Log(line)
	fmt.Println(line)
}

// collect adds up what the subjects counted.
func (s *summary) collect(st *suite) {
	s.byKind = map[string]*kindCounts{}
	for _, sub := range st.subjects {
		b := sub.base()
		k := s.byKind[b.kind]
		if k == nil {
			k = &kindCounts{}
			s.byKind[b.kind] = k
		}
		k.subjects++
		if c := sub.Status().Connects; c > 1 {
			k.reconnects += c - 1
		}
		k.messages += b.messages.Load()
		k.faults += b.window.faults()
	}
	for _, k := range s.byKind {
		s.reconnects += k.reconnects
		s.messages += k.messages
	}
	for _, w := range st.ws {
		_, covered, dups := w.feed.counts()
		s.covered += covered
		s.replayed += dups
	}
	for _, l := range st.listeners {
		_, covered, dups := l.notes.counts()
		s.covered += covered
		s.replayed += dups
	}
	st.live.mu.Lock()
	s.opened = st.live.opens
	st.live.mu.Unlock()
	s.lost = st.v.lost.Load()
}
