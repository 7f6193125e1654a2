package testkit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// feed is a Subscriber that sends the given states.
type feed struct{ states []health.State }

func (f feed) Subscribe() (<-chan health.Status, func()) {
	ch := make(chan health.Status, len(f.states))
	for _, s := range f.states {
		ch <- health.Status{State: s}
	}
	return ch, func() { close(ch) }
}

func TestRecorderDropsRepeats(t *testing.T) {
	r := testkit.Record(feed{[]health.State{health.Idle, health.Connecting, health.Connecting, health.Connected}})
	// Stop closes the channel; the recorder still reads what it holds.
	assert.Equal(t, []health.State{health.Idle, health.Connecting, health.Connected}, r.Stop())
}

func TestWaitStatus(t *testing.T) {
	st := testkit.WaitStatus(t, feed{[]health.State{health.Idle, health.Backoff}}, time.Second, "backoff", testkit.InState(health.Backoff))
	assert.Equal(t, health.Backoff, st.State)
}

func TestBufferWaitFor(t *testing.T) {
	var b testkit.Buffer
	go func() {
		for i := range 3 {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}()
	b.WaitFor(t, "line 2", time.Second)
	assert.Contains(t, b.String(), "line 0")
}
