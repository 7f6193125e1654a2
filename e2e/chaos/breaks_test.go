package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// Ways to break one invariant on purpose (-chaos.break=NAME), to see that
// its check fails with a clear message naming the subject. A run with a
// break must fail; see doc.go.
const (
	breakSecondConn    = "second-conn"    // ws-00 opens a second connection to its server on every connect
	breakSkipSeq       = "skip-seq"       // the WebSocket server skips one sequence number of ws-00, no reconnect
	breakSkipNotify    = "skip-notify"    // the NOTIFY sender skips one sequence number of pgl-00
	breakDropProbe     = "drop-probe"     // pgl-00 ignores its round-trip notifications while Connected
	breakKeepFault     = "keep-fault"     // ws-00's proxy stays disabled after the faults stop
	breakSlowRun       = "slow-run"       // ws-00's Run goroutine is held 3s after cancel
	breakLeakConn      = "leak-conn"      // a connection as ws-00 is opened after cancel and left open
	breakLeakGoroutine = "leak-goroutine" // a goroutine outlives the run
	breakPGExtraConn   = "pg-extra-conn"  // a second connection as pgl-00 from the faults' start, another after cancel
)

var breaks = []string{breakSecondConn, breakSkipSeq, breakSkipNotify, breakDropProbe,
	breakKeepFault, breakSlowRun, breakLeakConn, breakLeakGoroutine, breakPGExtraConn}

// openExtra opens a connection to s's server as s, beside the
// supervisor's: one the supervisor does not know. With resume it takes
// the feed and stays open for as long as the server runs; without, the
// server drops it after writeTimeout.
func (s *wsSubject) openExtra(ctx context.Context, resume bool) {
	c, _, err := websocket.Dial(ctx, s.url, nil)
	if err != nil {
		return
	}
	if resume {
		_ = c.Write(ctx, websocket.MessageText, []byte("resume 999999 1"))
	}
	s.mu.Lock()
	s.extra = append(s.extra, c)
	s.mu.Unlock()
}

// closeExtra closes what openExtra opened.
func (s *wsSubject) closeExtra() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.extra {
		_ = c.CloseNow()
	}
	s.extra = nil
}

// leaked is the goroutine -chaos.break=leak-goroutine leaves behind until
// the leak check has run.
var leaked = make(chan struct{})

func leakGoroutine() { go func() { <-leaked }() }

// releaseLeak ends it, once TestChaos looked for leaks.
func releaseLeak() {
	select {
	case <-leaked:
	default:
		close(leaked)
	}
}

// pgExtraConn opens a connection to the cluster as pgl-00 (its
// application_name), beside the Listener's; it is closed when t ends.
func pgExtraConn(t *testing.T, c *pgtest.Cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("application_name", appPrefix+"pgl-00"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
}
