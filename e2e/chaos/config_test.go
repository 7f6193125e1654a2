package chaos

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/pgtest"
)

var (
	seedFlag     = flag.Uint64("chaos.seed", 0, "seed of the fault schedule and of every backoff; 0 picks one (it is printed)")
	durationFlag = flag.Duration("chaos.duration", 0, "how long faults are injected; 0 means 22s, or 6s with -short")
	breakFlag    = flag.String("chaos.break", "", "break one invariant on purpose to see its check fail: "+strings.Join(breaks, ", "))
)

// The timings every subject uses: small, so that recovery takes about a
// second on a quiet machine. Those that bound work on a busy one are
// vars: calibrate scales them by how slow a login is at the start.
const (
	backoffBase  = 30 * time.Millisecond
	backoffCap   = time.Second
	stableAfter  = 2 * time.Second
	pingInterval = 300 * time.Millisecond // WebSocket heartbeat, Pool pings
)

var (
	connectTimeout = time.Second // supervisor.Options.ConnectTimeout
	pingTimeout    = 700 * time.Millisecond

	rtTimeout     = time.Second     // a Connected subject's round trip
	loginBound    = 3 * time.Second // a fresh pooled connection's login, before a round trip (see prepare)
	overlapGrace  = time.Second     // how long a second server-side connection may linger
	stopBound     = 2 * time.Second // Run returns after cancel; then the server side is closed
	recoverMargin = 3 * time.Second // detection + ConnectTimeout + slack, on top of Cap

	// detectBound is how long after a fault a connection that lived
	// through it is trusted to be healthy or known broken: a Pool's ping
	// interval and two ping timeouts (the longest detection here), and
	// slack.
	detectBound = pingInterval + 2*pingTimeout + 500*time.Millisecond
)

// quietLogins is about what the slowest of calibrateLogins concurrent
// SCRAM logins over loopback takes under -race on an idle 2-core
// machine; calibrate compares what it measures with it.
const (
	calibrateLogins = 8
	quietLogins     = 400 * time.Millisecond
)

// calibrate makes calibrateLogins logins to c at once, twice, and if the
// slowest took longer than quietLogins, stretches the bounds above by
// that ratio (at most 4x): a login under -race beside two CPU burners
// took 0.7-1.8s, more than a Pool's ping timeout, and every Pool subject
// then failed the recovery rule although nothing was wrong. Logins made
// one at a time measured the machine before the run's own load (151ms,
// then every subject starved): concurrent ones come nearer to it. It
// returns the factor and the slowest login, for the log.
func calibrate(t testing.TB, c *pgtest.Cluster) (float64, time.Duration) {
	var (
		mu      sync.Mutex
		slowest time.Duration
		failed  error
	)
	for range 2 {
		var wg sync.WaitGroup
		for range calibrateLogins {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				start := time.Now()
				conn, err := pgx.Connect(ctx, c.DSN("application_name", "redial-chaos-calibrate"))
				took := time.Since(start)
				if err == nil {
					_ = conn.Close(ctx)
				}
				mu.Lock()
				defer mu.Unlock()
				slowest, failed = max(slowest, took), cmp.Or(failed, err)
			})
		}
		wg.Wait()
	}
	if failed != nil {
		t.Fatalf("calibrate: %v", failed)
	}
	f := min(max(float64(slowest)/float64(quietLogins), 1), 4)
	for _, d := range []*time.Duration{&connectTimeout, &pingTimeout, &rtTimeout, &loginBound, &overlapGrace, &stopBound, &recoverMargin} {
		*d = time.Duration(float64(*d) * f)
	}
	detectBound = pingInterval + 2*pingTimeout + 500*time.Millisecond
	return f, slowest
}

// mix is how many subjects of each kind run, and how many servers each
// transport's subjects share (a server restart hits all of its subjects).
type mix struct {
	ws, tcp, rpc, listeners, pools    int
	wsServers, tcpServers, rpcServers int
}

func (m mix) total() int { return m.ws + m.tcp + m.rpc + m.listeners + m.pools }

var defaultMix = mix{ws: 12, tcp: 10, rpc: 10, listeners: 10, pools: 8, wsServers: 2, tcpServers: 2, rpcServers: 2}

// config is one run's parameters.
type config struct {
	seed     uint64
	duration time.Duration // faults are injected this long
	mix      mix
	brk      string // the invariant broken on purpose, or ""
}

func newConfig(t *testing.T) config {
	c := config{seed: *seedFlag, duration: *durationFlag, mix: defaultMix, brk: *breakFlag}
	if c.seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		c.seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
	}
	if c.duration == 0 {
		c.duration = 22 * time.Second
		if testing.Short() {
			c.duration = 6 * time.Second
		}
	}
	if c.brk != "" && !slices.Contains(breaks, c.brk) {
		t.Fatalf("-chaos.break=%q: want one of %s", c.brk, strings.Join(breaks, ", "))
	}
	return c
}

// backoff returns subject i's backoff: seeded from the run's seed, so
// that the jitter is the same when the seed is.
func (c config) backoff(i int) backoff.Config {
	return backoff.Config{Base: backoffBase, Cap: backoffCap, Seed: (c.seed+uint64(i)*0x9E3779B97F4A7C15)>>1 | 1}
}

func (c config) String() string {
	return fmt.Sprintf("seed=%d duration=%v subjects=%d (ws=%d tcp=%d rpc=%d listener=%d pool=%d)",
		c.seed, c.duration, c.mix.total(), c.mix.ws, c.mix.tcp, c.mix.rpc, c.mix.listeners, c.mix.pools)
}

func uitoa(n uint64) string { return fmt.Sprint(n) }
