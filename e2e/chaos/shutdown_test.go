package chaos

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// checkStopped is the first half of the stop rule: after cancel (at
// cancelled), every Run returns within stopBound, without an error. It
// waits for late ones, so that they are reported rather than leaked (a
// Run that never returns ends in the test's -timeout, with the stacks).
func checkStopped(subjects []subject, cancelled time.Time, v *violations) {
	for _, s := range subjects {
		b := s.base()
		<-b.runDone
		if took := b.runEnd.Sub(cancelled); took > stopBound {
			v.add(ruleStop, b.name, "Run returned %v after cancel (bound %v)", took.Round(time.Millisecond), stopBound)
		}
		if b.runErr != nil {
			v.add(ruleGaveUp, b.name, "Run returned %v", b.runErr)
		}
	}
}

// checkClosed is the second half: once every Run returned, the servers
// see every connection of the subjects closed: the WebSocket servers'
// counts and pg_stat_activity are empty within stopBound. It returns how
// many were still open.
func checkClosed(live *liveCounter, helper *pgxpool.Pool, pg []string, v *violations) int {
	deadline := time.Now().Add(stopBound)
	for {
		open := live.openNow() // the servers' counts; the PostgreSQL subjects' are read now
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		counts, err := pgCounts(ctx, helper)
		cancel()
		for _, name := range pg {
			delete(open, name)
		}
		maps.Copy(open, counts)
		if err == nil && len(open) == 0 {
			return 0
		}
		if time.Now().After(deadline) {
			leaked := 0
			for _, name := range slices.Sorted(maps.Keys(open)) {
				v.add(ruleLeak, name, "%d server-side connection(s) still open %v after every Run returned", open[name], stopBound)
				leaked += open[name]
			}
			if err != nil {
				v.add(ruleLeak, "postgres", "pg_stat_activity unreadable: %v", err)
			}
			return leaked
		}
		pause(context.Background(), 50*time.Millisecond) // the servers say nothing when a count drops: poll
	}
}
