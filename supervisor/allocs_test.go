package supervisor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Conn and Do without I/O allocate nothing on a connected supervisor: a
// message or call path pays for the supervisor in time only, which is
// what lets it cost what the raw library costs (BENCHMARKS.md, "The
// message and call paths"). Nor do ReportSuccess and RetryNow, which a pool's
// queries call after every success.
func TestConnAndDoAllocateNothing(t *testing.T) {
	s, ctx := connected(t)
	ok := func(context.Context, *idleConn) error { return nil }
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		if _, err := s.Conn(ctx); err != nil {
			t.Fatal(err)
		}
	}), "Conn")
	assert.Zero(t, testing.AllocsPerRun(1000, func() {
		if err := s.Do(ctx, ok); err != nil {
			t.Fatal(err)
		}
	}), "Do")
	assert.Zero(t, testing.AllocsPerRun(1000, s.ReportSuccess), "ReportSuccess")
	assert.Zero(t, testing.AllocsPerRun(1000, s.RetryNow), "RetryNow")
}
