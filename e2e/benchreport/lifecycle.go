package main

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The commands of the lifecycle section: the drain tests (three runs),
// the MaxConnectionAgeJitter sweep (in e2e), the supervisor's fleet test,
// and the feeds replaced by age, the 2-minute one included.
var (
	drainArgs = []string{"test", "-race", "-count=3", "-json", "-run", "Drain", "./adapters/websocket/", "./adapters/gorilla/", "./adapters/amqp/", "./adapters/postgres/"}
	sweepEnv  = []string{"REDIAL_AGE_SWEEP=1"}
	sweepArgs = []string{"test", "-count=1", "-json", "-run", "TestMaxConnectionAgeJitterSweep", "./benchreport/"}
	fleetArgs = []string{"test", "-count=1", "-json", "-run", "TestMaxConnectionAgeSpreadsAFleet$", "./supervisor/"}
	feedEnv   = []string{"REDIAL_LONG=1"}
	feedArgs  = []string{"test", "-count=1", "-json", "-run", "TestMaxConnectionAgeFeed|TestReplaceResumesWithOneSwitchSignal", "./adapters/websocket/", "./adapters/sse/"}
)

// lifecycleSection is drain and make-before-break: what each adapter's
// Drain waits for and says, how MaxConnectionAgeJitter spreads a fleet's
// replacements, and a feed replaced by age losing nothing.
func lifecycleSection(b *strings.Builder) error {
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Fields(string(b) + " ?")[0]
	}
	var logs [4][]testLog
	for i, c := range []struct {
		dir       string
		env, args []string
	}{{rootDir, nil, drainArgs}, {e2eDir, sweepEnv, sweepArgs}, {rootDir, nil, fleetArgs}, {rootDir, feedEnv, feedArgs}} {
		out, err := goCmdEnv(c.dir, c.env, c.args...)
		if err != nil {
			return fmt.Errorf("%w:\n%s", err, testOutput(out))
		}
		logs[i] = testLogs(out)
	}
	d, err := drainFigures(logs[0])
	if err != nil {
		return err
	}
	sweep, err := sweepFigures(logs[1])
	if err != nil {
		return err
	}
	fleet := matches(logs[2], "supervisor", "TestMaxConnectionAgeSpreadsAFleet", fleetLine)
	if len(fleet) != 1 {
		return fmt.Errorf("lifecycle: TestMaxConnectionAgeSpreadsAFleet logged %d figures, want 1", len(fleet))
	}
	f, err := feedFigures(logs[3])
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "## Drain and make-before-break\n\n")
	drainTable(b, d, load)
	sweepTable(b, sweep, fleet[0])
	feedText(b, f)
	return nil
}

// command writes args as the go command a reader runs in a shell, with
// env before it.
func command(env []string, args []string) string {
	words := append(append([]string{}, env...), "go")
	for _, a := range args {
		if strings.ContainsAny(a, "|$*?()[]{}<>&; '\"") {
			a = "'" + a + "'"
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

var (
	wsDrainLine   = regexp.MustCompile(`^drain: readiness 503 at once; the Do under way released (\S+) after the drain began; Stopped (\S+) after it was released`)
	amqpDrainLine = regexp.MustCompile(`^drain: (\d+) deliveries yielded and acked after it began; Stopped (\S+) after it began`)
	amqpKeptLine  = regexp.MustCompile(`^drain: (\d+) of (\d+) messages acked or requeued, \d+ acked \(prefetch (\d+)\)`)
	pgConnLine    = regexp.MustCompile(`^conn drain: Stopped (\S+) after the query under way returned`)
	pgPoolLine    = regexp.MustCompile(`^pool drain: closed (\S+) after the query under way returned \((\d+) connections said Terminate\)`)
)

// span is the least and the most of a figure over runs.
type span struct {
	lo, hi float64
	vs     []float64
}

func (s *span) add(v float64) {
	if len(s.vs) == 0 {
		s.lo, s.hi = v, v
	}
	s.lo, s.hi, s.vs = min(s.lo, v), max(s.hi, v), append(s.vs, v)
}

// ms writes a span of milliseconds, its median first: "8.2 ms",
// "1.7 ms (1.6-1.9)", "12 ms (9-21)".
func (s span) ms() string {
	f := func(v float64) string {
		if v >= 10 || v == math.Trunc(v) {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	if f(s.lo) == f(s.hi) {
		return f(s.lo) + " ms"
	}
	return f(medianOf(s.vs)) + " ms (" + f(s.lo) + "-" + f(s.hi) + ")"
}

// count writes a span of counts: "8" or "7-8".
func (s span) count() string {
	if s.lo == s.hi {
		return fmt.Sprintf("%.0f", s.lo)
	}
	return fmt.Sprintf("%.0f-%.0f", s.lo, s.hi)
}

// drainRuns are the drain tests' figures over their runs.
type drainRuns struct {
	runs                    int
	wsReleased, ws, gorilla span // ms
	amqp                    span // ms after the drain began
	amqpAfter, amqpPrefetch span
	amqpKept, amqpOf        int // the fewest acked or requeued, of
	pg, pgConns             span
}

// addMS adds each match's submatch i, a duration, to s in ms, and returns
// how many there were.
func addMS(s *span, ms [][]string, i int) (int, error) {
	for _, m := range ms {
		d, err := time.ParseDuration(m[i])
		if err != nil {
			return 0, err
		}
		s.add(float64(d) / float64(time.Millisecond))
	}
	return len(ms), nil
}

func drainFigures(logs []testLog) (drainRuns, error) {
	var d drainRuns
	want := func(what string, got, n int, err error) error {
		if err == nil && got != n {
			err = fmt.Errorf("lifecycle: %d figures of %s, want %d", got, what, n)
		}
		return err
	}
	ws := matches(logs, "adapters/websocket", "TestDrainSaysGoingAway", wsDrainLine)
	d.runs = len(ws)
	if d.runs == 0 {
		return d, fmt.Errorf("lifecycle: no drain figure of adapters/websocket")
	}
	if _, err := addMS(&d.wsReleased, ws, 1); err != nil {
		return d, err
	}
	n, err := addMS(&d.ws, ws, 2)
	if err := want("websocket", n, d.runs, err); err != nil {
		return d, err
	}
	n, err = addMS(&d.gorilla, matches(logs, "adapters/gorilla", "TestDrainSaysGoingAway", wsDrainLine), 2)
	if err := want("gorilla (two servers)", n, 2*d.runs, err); err != nil {
		return d, err
	}
	am := matches(logs, "adapters/amqp", "TestDrainCancelsTheConsumerAndLosesNothing", amqpDrainLine)
	n, err = addMS(&d.amqp, am, 2)
	if err := want("amqp", n, d.runs, err); err != nil {
		return d, err
	}
	for _, m := range am {
		v, _ := strconv.Atoi(m[1])
		d.amqpAfter.add(float64(v))
	}
	kept := matches(logs, "adapters/amqp", "TestDrainCancelsTheConsumerAndLosesNothing", amqpKeptLine)
	if err := want("amqp's messages", len(kept), d.runs, nil); err != nil {
		return d, err
	}
	d.amqpKept = math.MaxInt
	for _, m := range kept {
		k, _ := strconv.Atoi(m[1])
		of, _ := strconv.Atoi(m[2])
		p, _ := strconv.Atoi(m[3])
		d.amqpKept, d.amqpOf = min(d.amqpKept, k), of
		d.amqpPrefetch.add(float64(p))
	}
	n, err = addMS(&d.pg, matches(logs, "adapters/postgres", "TestConnDrain", pgConnLine), 1)
	if err := want("postgres Conn", n, d.runs, err); err != nil {
		return d, err
	}
	pool := matches(logs, "adapters/postgres", "TestPoolDrain", pgPoolLine)
	n, err = addMS(&d.pg, pool, 1)
	if err := want("postgres Pool", n, d.runs, err); err != nil {
		return d, err
	}
	for _, m := range pool {
		v, _ := strconv.Atoi(m[2])
		d.pgConns.add(float64(v))
	}
	return d, nil
}

// drainTable writes the drain tests' figures; load is the machine's
// 1-minute load average when they began.
func drainTable(b *strings.Builder, d drainRuns, load string) {
	fmt.Fprintf(b, "**Drain** (issue 29 item 3; `%s` %s, loopback, RabbitMQ and PostgreSQL started by the tests, %d runs, the 1-minute load average %s when they began; `-json` gives benchreport each line's test, `-v` in its place prints the same lines). ", command(nil, drainArgs), where(rootDir), d.runs, load)
	fmt.Fprintf(b, "Each test asserts that readiness answers 503 from Drain's first instant (the WebSocket tests also read the probe while the server reads the close: 503), that new work is refused with ErrDraining, and the goodbye the server saw; every run passed. ")
	fmt.Fprintf(b, "The work under way completes and Run is Stopped this long after it returned (the median, and the least and most, over the runs):\n\n")
	fmt.Fprintf(b, "| adapter | the work under way | Stopped after it returned | goodbye the server saw |\n|---|---|---|---|\n")
	fmt.Fprintf(b, "| websocket (coder) | a Do writing a message, released %s after the drain began | %s | the message, then close 1001 |\n", d.wsReleased.ms(), d.ws.ms())
	fmt.Fprintf(b, "| gorilla (gorilla and coder servers) | the same | %s | the message, then close 1001 |\n", d.gorilla.ms())
	fmt.Fprintf(b, "| amqp | a Deliveries loop, %s deliveries in its prefetch (%s yielded and acked after the drain began) | %s after the drain began | consumer count 0 while the connection is open; %d of %d messages acked or requeued |\n",
		d.amqpPrefetch.count(), d.amqpAfter.count(), d.amqp.ms(), d.amqpKept, d.amqpOf)
	fmt.Fprintf(b, "| postgres Conn, Pool (%s connections) | `select pg_sleep(0.3)` | %s | Terminate ('X') as each connection's last message |\n\n", d.pgConns.count(), d.pg.ms())
}

var (
	sweepLine = regexp.MustCompile(`^age (\S+) jitter age/(\d+): \d+ replacements, mean ([\d.]+)/s, busiest second (\d+) \(([\d.]+)x\)`)
	fleetLine = regexp.MustCompile(`^\d+ replacements in \S+: mean (\d+)/s, busiest second (\d+) \(([\d.]+)x\)`)
)

// fleetN is how many supervisors the sweep runs.
const fleetN = 1000

// sweepJitters are the sweep's rows, MaxConnectionAge over these, and
// its columns, the ages.
var (
	sweepJitters = []string{"10", "4", "3", "2"}
	sweepAges    = []string{"10s", "1m0s"}
)

// sweepCell is one age and jitter of the sweep.
type sweepCell struct {
	mean    float64
	busiest int
	ratio   float64
}

// sweepFigures returns the sweep's cells by age and jitter divisor.
func sweepFigures(logs []testLog) (map[[2]string]sweepCell, error) {
	cells := map[[2]string]sweepCell{}
	for _, m := range matches(logs, "benchreport", "TestMaxConnectionAgeJitterSweep", sweepLine) {
		mean, _ := strconv.ParseFloat(m[3], 64)
		busiest, _ := strconv.Atoi(m[4])
		ratio, _ := strconv.ParseFloat(m[5], 64)
		cells[[2]string{m[1], m[2]}] = sweepCell{mean, busiest, ratio}
	}
	for _, a := range sweepAges {
		for _, j := range sweepJitters {
			if _, ok := cells[[2]string{a, j}]; !ok {
				return nil, fmt.Errorf("lifecycle: the sweep has no age %s jitter age/%s", a, j)
			}
		}
	}
	return cells, nil
}

func sweepTable(b *strings.Builder, cells map[[2]string]sweepCell, fleet []string) {
	fmt.Fprintf(b, "**Make-before-break by age** (`%s` %s): %s supervisors of an in-memory connector connected at the same instant, replaced by MaxConnectionAge for 12 ages (synctest, virtual time; the busiest second against the mean from the first second one can be due):\n\n", command(sweepEnv, sweepArgs), where(e2eDir), thousands(fleetN))
	fmt.Fprintf(b, "| MaxConnectionAgeJitter | age 10 s: mean, busiest | age 1 min: mean, busiest |\n|---|---|---|\n")
	label := map[string]string{"10": "age/10 (gRPC's ±10 % is of this order)", "2": "age/2 (default)"}
	for _, j := range sweepJitters {
		name := label[j]
		if name == "" {
			name = "age/" + j
		}
		fmt.Fprintf(b, "| %s |", name)
		for _, a := range sweepAges {
			c := cells[[2]string{a, j}]
			fmt.Fprintf(b, " %s/s, %d (%.2fx) |", strconv.FormatFloat(c.mean, 'g', 3, 64), c.busiest, c.ratio)
		}
		fmt.Fprintln(b)
	}
	def10, def1m := cells[[2]string{"10s", "2"}], cells[[2]string{"1m0s", "2"}]
	fmt.Fprintf(b, "\nA fleet that connected together stays together by as much as the jitter leaves: the first generation falls within [age - jitter, age], so its busiest second is about N/jitter against a mean of N/(age - jitter/2), (age - jitter/2)/jitter times the mean; only a jitter of at least 0.4 x age keeps that within 2x, hence age/2 (1.5x; connections then live 0.75 x age on average). ")
	peak10, peak1m := fleetN/5.0, fleetN/30.0 // N/jitter at age/2, in a second
	fmt.Fprintf(b, "Above 1.5x is noise: at age/2 the first generation puts about N/jitter in a second, %.0f at 10 s ages and %.0f at 1 minute, give or take its square root (±%.0f, %.0f%%; ±%.1f, %.0f%%), and the busiest of many seconds lies a few of those above: the default row's %.2fx and %.2fx. ",
		peak10, peak1m, math.Sqrt(peak10), 100/math.Sqrt(peak10), math.Sqrt(peak1m), 100/math.Sqrt(peak1m), def10.ratio, def1m.ratio)
	fmt.Fprintf(b, "`TestMaxConnectionAgeSpreadsAFleet` (`%s` %s) holds the 10 s row under 2x; in this run mean %s/s, busiest second %s (%sx).\n\n", command(nil, fleetArgs), where(rootDir), fleet[1], fleet[2], fleet[3])
}

var (
	feedLine = regexp.MustCompile(`^(\d+) messages, (\d+) connections, (\d+) switches, (\d+) replayed twice, (\d+) lost`)
	sseLine  = regexp.MustCompile(`^(\d+) events once each, in order; (\d+) switches over (\d+) connections`)
)

// feedRun is what a feed replaced by age counted.
type feedRun struct{ messages, connections, switches, twice, lost int }

// feeds are the WebSocket feeds' runs (5 s, 2 minutes) and SSE's
// Replace test's figures.
type feeds struct {
	short, long feedRun
	sse         [3]int // events, switches, connections
}

func feedFigures(logs []testLog) (feeds, error) {
	var f feeds
	for _, r := range []struct {
		test string
		run  *feedRun
	}{{"TestMaxConnectionAgeFeedLosesNothing", &f.short}, {"TestMaxConnectionAgeFeedTwoMinutes", &f.long}} {
		ms := matches(logs, "adapters/websocket", r.test, feedLine)
		if len(ms) != 1 {
			return f, fmt.Errorf("lifecycle: %s logged %d figures, want 1", r.test, len(ms))
		}
		v := atois(ms[0][1:])
		*r.run = feedRun{v[0], v[1], v[2], v[3], v[4]}
	}
	ms := matches(logs, "adapters/sse", "TestReplaceResumesWithOneSwitchSignal", sseLine)
	if len(ms) != 1 {
		return f, fmt.Errorf("lifecycle: TestReplaceResumesWithOneSwitchSignal logged %d figures, want 1", len(ms))
	}
	copy(f.sse[:], atois(ms[0][1:]))
	return f, nil
}

func atois(ss []string) []int {
	vs := make([]int, len(ss))
	for i, s := range ss {
		vs[i], _ = strconv.Atoi(s)
	}
	return vs
}

func feedText(b *strings.Builder, f feeds) {
	fmt.Fprintf(b, "**A feed replaced by age** (`%s` %s): a WebSocket feed against a server that replays from a position (`?from=` set by BeforeConnect from the last message seen), one message a millisecond. ", command(feedEnv, feedArgs), where(rootDir))
	fmt.Fprintf(b, "With MaxConnectionAge 500 ms for 5 s, %s messages over %d connections, %d ErrSwitched signals (one per replacement), %d messages carried by both the old and the new connection, %d lost (`TestMaxConnectionAgeFeedLosesNothing`). ",
		thousands(f.short.messages), f.short.connections, f.short.switches, f.short.twice, f.short.lost)
	fmt.Fprintf(b, "The measurement of issue 29, MaxConnectionAge 10 s (default jitter) for 2 minutes (`TestMaxConnectionAgeFeedTwoMinutes`, which runs with REDIAL_LONG=1): %s messages over %d connections, %d ErrSwitched signals, %d messages carried twice, %d lost. ",
		thousands(f.long.messages), f.long.connections, f.long.switches, f.long.twice, f.long.lost)
	fmt.Fprintf(b, "SSE needs no replay: the new stream is dialed after the old one's last event read and sends Last-Event-ID, so every event comes once (`TestReplaceResumesWithOneSwitchSignal`: %d events, each once and in order, %d ErrSwitched signals over %d connections).\n\n", f.sse[0], f.sse[1], f.sse[2])
}

// thousands writes n with commas: 98,573.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
