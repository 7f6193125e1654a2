package chaos

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// counter serves numbered lines, one every 10ms, to every connection
// until it ends.
func counter(t *testing.T) string {
	return testkit.Serve(t, func(c net.Conn) {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for n := 1; ; n++ {
			if _, err := fmt.Fprintf(c, "%d\n", n); err != nil {
				return
			}
			<-tick.C
		}
	})
}

// The latency toxic and toxitest.Stall hold data back while they are in
// force and deliver all of it, in order, when they are removed; removing
// them is quick, also after the client gave up while they held data
// (toxiproxy's own latency and bandwidth toxics took minutes there).
func TestToxicsHoldAndRemoveQuickly(t *testing.T) {
	for _, typ := range []string{latencyToxic, "stall"} {
		t.Run(typ, func(t *testing.T) {
			add := func(p *toxitest.Proxy, name string, ms int) {
				if typ == "stall" {
					p.Stall(t, name, "downstream")
				} else {
					p.Add(t, name, typ, "downstream", map[string]any{"latency": ms})
				}
			}
			p := toxitest.New(t, counter(t))
			c, err := net.Dial("tcp", p.Addr())
			require.NoError(t, err)
			defer c.Close()
			lines := bufio.NewScanner(c)
			require.True(t, lines.Scan())
			add(p, "t", 300)
			pause(context.Background(), 500*time.Millisecond) // the toxic holds what comes meanwhile
			late := testkit.MeasureLateness(t)
			start := time.Now()
			p.Remove(t, "t")
			// An HTTP call to the proxy: its wake-ups on both sides are as
			// late as the machine makes them; the held 300ms are not waited.
			assert.Less(t, time.Since(start), late.Bound(200*time.Millisecond, 0, 4), "removal with a live client")
			for want := 2; want <= 60; want++ {
				require.True(t, lines.Scan(), "line %d", want)
				require.Equal(t, fmt.Sprint(want), lines.Text(), "nothing lost or reordered")
			}

			c2, err := net.Dial("tcp", p.Addr())
			require.NoError(t, err)
			add(p, "t2", 1000)
			pause(context.Background(), 300*time.Millisecond)
			c2.Close() // the client gives up while the toxic holds its data
			pause(context.Background(), 100*time.Millisecond)
			start = time.Now()
			p.Remove(t, "t2")
			assert.Less(t, time.Since(start), late.Bound(flushBudget+500*time.Millisecond, 0, 4), "removal after the client gave up")
		})
	}
}
