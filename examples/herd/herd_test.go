package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// small is the default scenario scaled down 5x in clients and capacity:
// the same ideal finish (D + N/K = 40s), quick to run.
func small() scenario {
	return scenario{N: 2000, Down: 30 * time.Second, Rate: 200, Base: time.Second, Cap: time.Minute,
		Seed: 7, Window: 100 * time.Millisecond, Horizon: 6 * time.Hour}
}

func TestHerdRows(t *testing.T) {
	s := small()
	rs, err := simulateAll(s)
	require.NoError(t, err)
	by := map[string]result{}
	for _, r := range rs {
		by[r.Name] = r
		assert.Zero(t, r.Left, "%s: every client comes back", r.Name)
		assert.Equal(t, r.Attempts-r.Failed, s.N, "%s: one success per client", r.Name)
		assert.GreaterOrEqual(t, r.LastConnected, s.Down, "%s: nobody connects while the server is down", r.Name)
	}
	capacity := float64(s.Rate) * s.Window.Seconds()
	nj, rp, ph := measure(s, by["no jitter"]), measure(s, by["redial policy"]), measure(s, by["redial + planned hints"])
	assert.Equal(t, s.N, nj.peak, "without jitter every client retries in the same window")
	assert.Less(t, rp.peak, nj.peak/5, "rand[0, Base) spreads the first retry over ten windows")
	assert.LessOrEqual(t, rp.peakAfterUp, 2*capacity)
	assert.LessOrEqual(t, ph.finishRatio, 1.2)
	assert.LessOrEqual(t, float64(ph.peakAdmits), capacity, "package admit takes them at its pace")
	assert.Less(t, ph.finishRatio, rp.finishRatio)
	assert.Greater(t, measure(s, by["decorrelated"]).finishRatio, 1.5, "without hints the backoff's tail decides the finish")
}

func TestServerNeverAcceptsMoreThanItsRate(t *testing.T) {
	s := small()
	rs, err := simulateAll(s)
	require.NoError(t, err)
	for _, r := range rs {
		assert.LessOrEqual(t, r.MaxAccepts, s.Rate, "%s", r.Name)
	}
	assert.Equal(t, s.Rate, rs[0].MaxAccepts, "a wave without jitter fills a whole second")
	assert.Greater(t, rs[0].Failed, 5*s.N, "waves of 2000 against 200 a second fail again and again")
}

func TestAHintedClientOnTimeIsAccepted(t *testing.T) {
	s := small()
	s.Rate = 20 // so many are rejected after recovery that hinted and unhinted clients compete
	for _, planned := range []bool{false, true} {
		cs, err := clientsFor(s, 0, true)
		require.NoError(t, err)
		r := run("hints", s, cs, true, planned)
		assert.Zero(t, r.BrokenHints, "planned=%v: a reserved slot was given away", planned)
		assert.Zero(t, r.Left)
	}
}

func TestReportAndPlot(t *testing.T) {
	s := small()
	rs, err := simulateAll(s)
	require.NoError(t, err)
	var out bytes.Buffer
	report(&out, s, rs)
	for _, want := range []string{"no jitter", "redial policy", "redial + planned hints", "ideal finish 40s"} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, out.String(), "target", "the targets are BENCHMARKS.md's, not a first-time user's")
	var svg bytes.Buffer
	require.NoError(t, plot(&svg, s, rs))
	assert.True(t, strings.HasPrefix(svg.String(), "<svg"))
	assert.Equal(t, len(rs), strings.Count(svg.String(), "<polygon"))
}

func TestValidate(t *testing.T) {
	for _, s := range []scenario{{N: 0, Rate: 1, Seed: 1}, {N: 1, Rate: 0, Seed: 1}, {N: 1, Rate: 1, Seed: 0}, {N: 1, Rate: 1, Seed: 1, Down: -1}} {
		assert.Error(t, s.validate(), "%+v", s)
	}
}

// The outage's attempts, simulated one client after the other, are the
// same as through the event queue: they depend on no other client.
func TestOutageShortcutIsTheQueue(t *testing.T) {
	s := small()
	s.N = 500
	for _, down := range []time.Duration{0, 500 * time.Millisecond, 30 * time.Second} {
		s.Down = down
		fast, err := simulateAll(s)
		require.NoError(t, err)
		s.queueAll = true
		slow, err := simulateAll(s)
		require.NoError(t, err)
		s.queueAll = false
		assert.Equal(t, slow, fast, "down %v", down)
	}
}

// With a Service rate the server answers at most that many handshakes a
// second: a no-jitter wave reaches it spread out, first come first served.
func TestServiceSpreadsAWave(t *testing.T) {
	s := small()
	s.Down = 500 * time.Millisecond
	s.Service = 5000
	rs, err := simulateAll(s)
	require.NoError(t, err)
	for _, r := range rs {
		m := measure(s, r)
		assert.LessOrEqual(t, m.peakAfterUp, float64(s.Service)*s.Window.Seconds()+1, "%s", r.Name)
		assert.Zero(t, r.Left, "%s", r.Name)
	}
}

func TestJSON(t *testing.T) {
	s := small()
	rs, err := simulateAll(s)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, writeJSON(&out, s, rs))
	var got struct {
		N    int `json:"n"`
		Rows []row
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, s.N, got.N)
	require.Len(t, got.Rows, len(rs))
	assert.Equal(t, "redial policy", got.Rows[6].Name)
	assert.Positive(t, got.Rows[6].LastBack)
	assert.Equal(t, measure(s, rs[6]).peakAfterUp, float64(got.Rows[6].PeakUp))
}

func replicaTestScenario() replicaScenario {
	return replicaScenario{N: 3000, Replicas: 3, Rate: 1000, Base: time.Second, Cap: time.Minute, Seed: 1,
		Window: 100 * time.Millisecond, Horizon: time.Hour}
}

// A survivor never accepts more than its capacity in one window, and every
// displaced client gets back: the model's own rules.
func TestReplicasEveryDisplacedClientIsBack(t *testing.T) {
	s := replicaTestScenario()
	rs, err := simulateReplicas(s)
	require.NoError(t, err)
	require.Len(t, rs, len(replicaRows(s.Base)))
	for _, r := range rs {
		assert.Zero(t, r.Left, r.Name)
		assert.Greater(t, r.Last, time.Duration(0), r.Name)
		assert.Equal(t, s.displaced(), r.Attempts-r.Failed, "%s: one accepted attempt per displaced client", r.Name)
		assert.LessOrEqual(t, r.MaxAccepts, s.Rate/10, "%s: a survivor accepted more than its capacity per window", r.Name)
	}
}

// The spread is what keeps the survivors' peak down: no spread lands the
// whole displaced fleet on the next replica in one window; the wider the
// spread, the lower the peak.
func TestReplicasSpreadLowersThePeak(t *testing.T) {
	s := replicaTestScenario()
	rs, err := simulateReplicas(s)
	require.NoError(t, err)
	by := map[string]replicaResult{}
	for _, r := range rs {
		by[r.Name] = r
	}
	none := by["failover, no spread"]
	assert.GreaterOrEqual(t, none.peak(1), s.displaced()*9/10, "no spread: nearly all on replica 1 at once")
	prev := none.peak(1)
	for _, name := range []string{"failover, spread Base/8", "failover, spread Base/4", "failover, spread Base/2 (default)", "failover, spread Base"} {
		r, ok := by[name]
		require.True(t, ok, name)
		assert.Less(t, r.peak(1), prev, name)
		prev = r.peak(1)
	}
}

// The replica table says in one line why the default spread can peak
// higher than no failover.
func TestReplicasReportExplainsTheSpread(t *testing.T) {
	s := replicaTestScenario()
	rs, err := simulateReplicas(s)
	require.NoError(t, err)
	var out bytes.Buffer
	reportReplicas(&out, s, rs)
	assert.Contains(t, out.String(), "Why the default spread can peak higher than no failover")
	assert.NotContains(t, out.String(), "target")
}

// Without failover every pass starts with the dead replica: with dials to
// it that time out, each pass costs the timeout, and the last client is
// back later than with failover, which tries the survivors first.
func TestReplicasWalkPaysTheDeadReplicasTimeout(t *testing.T) {
	s := replicaTestScenario()
	s.DeadTimeout = 10 * time.Second
	rs, err := simulateReplicas(s)
	require.NoError(t, err)
	walk, def := rs[0], replicaResult{}
	for _, r := range rs {
		if r.Name == "failover, spread Base/2 (default)" {
			def = r
		}
	}
	require.Equal(t, "no failover (list from the top)", walk.Name)
	assert.Greater(t, walk.Last, 10*time.Second, "the first pass waited for the dead replica")
	assert.Less(t, def.Last, walk.Last, "failover went to a survivor first")
	assert.Equal(t, walk.Attempts-walk.Failed, def.Attempts-def.Failed)
}

// A backlog longer than MaxHint (1,000 s at N/K, against 5 minutes): the
// clients whose slot is further away than MaxHint come back early. The
// server keeps their place and tells them the rest of the wait; when it
// freed their slot and put them at the back of the line instead, the line
// grew faster than it was served and the hint rows never finished.
// Package admit's Planner gives no slot past its Horizon (MaxHint) instead.
func TestHintsLongerThanMaxHintFinish(t *testing.T) {
	s := small()
	s.N, s.Rate = 1000, 1
	s.Horizon = time.Hour // no jitter needs 17 hours: an hour of it is enough
	rs, err := simulateAll(s)
	require.NoError(t, err)
	by := map[string]result{}
	for _, r := range rs {
		by[r.Name] = r
		if r.Name != "no jitter" { // 1,000 in lockstep every Cap, one accepted a wave: 17 hours
			assert.Zero(t, r.Left, "%s: every client back within the horizon", r.Name)
		}
	}
	plain := by["redial policy"].LastConnected
	require.Positive(t, plain)
	for _, name := range []string{"redial + hints", "redial + planned hints"} {
		r := by[name]
		if name == "redial + hints" { // admit's Planner plans no further than MaxHint (its Horizon)
			assert.Positive(t, r.Early, "%s: some hints were longer than MaxHint", name)
		}
		assert.LessOrEqual(t, float64(r.LastConnected), 1.1*float64(plain), "%s: within 1.1x the plain policy's %v", name, plain)
	}
}
