package testkit_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// The probe sees a scheduler that cannot run it: with one P held by a
// goroutine that never yields, a timer waits for the preemption (10ms
// apart), so the worst sleep overshoots by milliseconds; Bound adds it
// once per wake-up.
func TestLatenessSeesABusyScheduler(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	late := testkit.MeasureLateness(t)
	time.Sleep(20 * time.Millisecond) // the probe runs
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
	}
	late.Stop()
	worst := late.Worst()
	assert.Greater(t, worst, time.Millisecond, "a held P did not delay the probe")
	assert.Equal(t, 300*time.Millisecond+100*time.Millisecond+3*worst, late.Bound(300*time.Millisecond, 100*time.Millisecond, 3))
	late.Stop() // twice, as the cleanup does
}
