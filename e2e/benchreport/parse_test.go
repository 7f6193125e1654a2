package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseAndMedian(t *testing.T) {
	out := `goos: linux
BenchmarkNext/decorrelated-2   279875091   4.087 ns/op   0 B/op   0 allocs/op
BenchmarkNext/decorrelated-2   279875091   4.5 ns/op   0 B/op   0 allocs/op
BenchmarkNext/decorrelated-2   279875091   3.9 ns/op   0 B/op   0 allocs/op
BenchmarkIdleSupervisors-2 1 1086838753 ns/op 3905 B/supervisor 0 sched-samples/supervisor/s
PASS`
	ss := parse(out)
	assert.Len(t, ss, 4)
	v, n := median(ss, "BenchmarkNext/decorrelated", "ns/op")
	assert.Equal(t, 3, n)
	assert.Equal(t, 4.087, v)
	v, _ = median(ss, "BenchmarkIdleSupervisors", "B/supervisor")
	assert.Equal(t, 3905.0, v)
	_, n = median(ss, "BenchmarkMissing", "ns/op")
	assert.Zero(t, n)
}

func TestReplaceBetween(t *testing.T) {
	f := t.TempDir() + "/README.md"
	assert.NoError(t, os.WriteFile(f, []byte("a\n<!-- herd:begin x -->\nold\n<!-- herd:end -->\nb\n"), 0o644))
	assert.NoError(t, replaceBetween(f, "<!-- herd:begin", "<!-- herd:end -->", "new\n"))
	got, _ := os.ReadFile(f)
	assert.Equal(t, "a\n<!-- herd:begin x -->\nnew\n<!-- herd:end -->\nb\n", string(got))
	assert.Error(t, replaceBetween(f, "<!-- nope", "<!-- herd:end -->", ""))
}

// A long overload's table writes a row left at the horizon as missed, with
// why for no jitter, and judges the hint rows against the plain policy.
func TestOverloadTableWritesMisses(t *testing.T) {
	h := herdRun{N: 10000, Rate: 10, IdealS: 1030, HorizonS: 21600, Rows: []herdRow{
		{Name: "no jitter", LastBack: -1, Left: 6400},
		{Name: "redial policy", LastBack: 1080, Finish: 1.05},
		{Name: "redial + hints", LastBack: 1141, Finish: 1.11, Early: 5000},
		{Name: "redial + planned hints", LastBack: 1190, Finish: 1.16},
	}}
	var b strings.Builder
	overloadTable(&b, h, "-n 10000 -rate 10", time.Second)
	out := b.String()
	assert.Contains(t, out, "every row back within the horizon: **missed**: no jitter (6400 left). No jitter cannot")
	assert.Contains(t, out, "16.7 h")
	assert.Contains(t, out, "| redial + hints | 0 | 0 | 5000 | 1141.0 s | 1.11 | 1.06x |")
	assert.Contains(t, out, "within 1.1x of the plain policy's finish (1080.0 s): **missed** (redial + hints 1.06x, redial + planned hints 1.10x)")
	h.Rows[3].LastBack = 1150
	b.Reset()
	overloadTable(&b, h, "", time.Second)
	assert.Contains(t, b.String(), "finish (1080.0 s): met")
}

func TestParseHeapDiff(t *testing.T) {
	out := `File: storm.test
Showing nodes accounting for 6548880B, 26.07% of 25117368B total
      flat  flat%   sum%        cum   cum%
  1888112B  7.52%  7.52%   2368112B  9.43%  github.com/redial-go/redial/supervisor.New[go.shape.*github.com/coder/websocket.Conn]
  -269472B  1.07% 19.97%   -258496B  1.03%  net/http.(*persistConn).writeLoop
   103680B  0.41% 24.21%    103680B  0.41%  internal/sync.newIndirectNode[go.shape.interface {},go.shape.interface {}] (inline)
`
	assert.Equal(t, []string{"`supervisor.New` +944 B", "`net/http.(*persistConn).writeLoop` -135 B", "`internal/sync.newIndirectNode` +52 B"}, parseHeapDiff(out, 2000))
}
