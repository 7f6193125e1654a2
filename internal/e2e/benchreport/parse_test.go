package main

import (
	"os"
	"testing"

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
