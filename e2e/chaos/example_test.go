package chaos

import (
	"fmt"
	"time"
)

// The schedule of a seed: the same seed always plans the same faults, in
// the same order, at the same times (plan runs before the run starts).
func Example_schedule() {
	for _, f := range plan(1, 3*time.Second, planSize{subjects: 50, servers: 6, pg: true}) {
		fmt.Printf("%v %v on %d for %v\n", f.at.Round(time.Millisecond), f.kind, f.target, f.hold.Round(time.Millisecond))
	}
	// Output:
	// 319ms latency on 3 for 1.485s
	// 710ms latency on 13 for 1.637s
	// 882ms latency on 31 for 1.113s
	// 1.326s bandwidth on 46 for 684ms
	// 1.477s disable on 22 for 993ms
	// 1.894s reset_peer on 29 for 114ms
	// 2.302s disable on 44 for 547ms
	// 2.617s timeout on 5 for 728ms
	// 2.728s reset_peer on 8 for 223ms
	// 2.83s pg_restart on 0 for 0s
}
