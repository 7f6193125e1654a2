package storm

import (
	"context"
	"flag"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/rabbittest"
)

var amqpN = flag.Int("storm.amqpn", 300, "AMQP storm: clients")

// amqpResult is one AMQP storm's figures, from the clients' records.
type amqpResult struct {
	down    time.Duration // from the kill until the broker took a login again
	peak    int           // attempts in the busiest 100 ms window once the broker was back
	attempt int           // attempts from the kill until every client was back or gave up
	allBack time.Duration // from the kill until the last client was back; -1 if some gave up
	gaveUp  int           // clients that gave up for good
}

// BenchmarkAMQPStorm: -storm.amqpn clients (300) hold connections to one
// RabbitMQ broker; the broker is killed (SIGKILL) and started again. The
// clients are redial's amqp.Client with the defaults (connections held
// 31 s first, so that their loss counts as stable), or amqp091-go's own
// recovery with its defaults (5 attempts, each after 5 s plus rand[0,
// 500 ms), then it gives up). Reported from the clients' records: the
// broker's downtime, the attempts in the busiest 100 ms window once it was
// back, the attempts in all, the seconds from the kill until every client
// was back, and how many gave up. Run with -benchtime=1x.
func BenchmarkAMQPStorm(b *testing.B) {
	for _, strategy := range []string{"redial", "amqp091-recovery"} {
		b.Run(strategy, func(b *testing.B) {
			for range b.N {
				r := amqpStorm(b, strategy, *amqpN)
				b.ReportMetric(r.down.Seconds(), "s-broker-down")
				b.ReportMetric(float64(r.peak), "peak-attempts/100ms")
				b.ReportMetric(float64(r.attempt), "attempts")
				b.ReportMetric(r.allBack.Seconds(), "s-until-all-back")
				b.ReportMetric(float64(r.gaveUp), "gave-up")
			}
		})
	}
}

// amqpFleet is n clients of one strategy: it records when each dialed, came
// back or gave up after the kill.
type amqpFleet struct {
	mu       sync.Mutex
	attempts []time.Time
	back     []time.Time
	gaveUp   int
	stop     func()
}

func (f *amqpFleet) record(list *[]time.Time, at time.Time) {
	f.mu.Lock()
	*list = append(*list, at)
	f.mu.Unlock()
}

// amqpStorm runs one storm of n clients of strategy.
func amqpStorm(b *testing.B, strategy string, n int) amqpResult {
	broker := rabbittest.Start(b, rabbittest.Options{})
	var f *amqpFleet
	hold := 2 * time.Second
	if strategy == "redial" {
		f, hold = redialFleet(b, broker, n), 31*time.Second
	} else {
		f = amqp091Fleet(b, broker, n)
	}
	defer f.stop()
	time.Sleep(hold) // the measurement: connections old enough to count as stable
	f.mu.Lock()
	f.attempts, f.back = nil, nil
	f.mu.Unlock()
	killed := time.Now()
	broker.Kill(b)
	broker.Start(b)
	r := amqpResult{down: time.Since(killed), allBack: -1}
	waitFor(b, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.back)+f.gaveUp >= n
	}, 10*time.Minute, "every client back or given up")
	f.mu.Lock()
	defer f.mu.Unlock()
	per := map[int64]int{}
	for _, at := range f.attempts {
		if at.After(killed.Add(r.down - 100*time.Millisecond)) {
			per[int64(at.Sub(killed)/(100*time.Millisecond))]++
		}
	}
	for _, c := range per {
		r.peak = max(r.peak, c)
	}
	r.attempt, r.gaveUp = len(f.attempts), f.gaveUp
	if len(f.back) == n {
		r.allBack = slices.MaxFunc(f.back, func(a, b time.Time) int { return a.Compare(b) }).Sub(killed)
	}
	b.Logf("%s: %d clients, broker down %v, %d attempts, peak %d per 100 ms once back, all back after %v, %d gave up",
		b.Name(), n, r.down.Round(time.Millisecond), r.attempt, r.peak, r.allBack.Round(time.Millisecond), r.gaveUp)
	return r
}

// redialFleet connects n amqp.Clients with the defaults; an attempt is a
// Connecting transition, back a Connected one.
func redialFleet(b *testing.B, broker *rabbittest.Broker, n int) *amqpFleet {
	f := &amqpFleet{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		c, err := amqp.New(broker.URL(), amqp.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ch, unsubscribe := c.Subscribe()
		wg.Go(func() { _ = c.Run(ctx) })
		wg.Go(func() {
			defer unsubscribe()
			var last health.Status
			for st := range ch {
				now := time.Now()
				if st.State == health.Connecting && (last.State != health.Connecting || st.ConsecutiveFailures != last.ConsecutiveFailures) {
					f.record(&f.attempts, now)
				}
				if st.State == health.Connected && last.State != health.Connected {
					f.record(&f.back, now)
				}
				last = st
			}
		})
	}
	f.stop = func() { cancel(); wg.Wait() }
	waitFor(b, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.back) == n
	}, 5*time.Minute, "first connections")
	return f
}

// amqp091Fleet connects n amqp091 connections with its own recovery on,
// its defaults; an attempt is a dial (recovery dials through Config.Dial),
// back a transition to StateOpen, gave up one to StateClosed.
func amqp091Fleet(b *testing.B, broker *rabbittest.Broker, n int) *amqpFleet {
	f := &amqpFleet{}
	var conns []*amqp091.Connection
	var wg sync.WaitGroup
	for range n {
		cfg := amqp091.Config{Recovery: &amqp091.Recovery{TopologyRecoveryMode: amqp091.TopologyRecoveryDisabled},
			Dial: func(network, addr string) (net.Conn, error) {
				f.record(&f.attempts, time.Now())
				return amqp091.DefaultDial(30*time.Second)(network, addr)
			}}
		c, err := amqp091.DialConfig(broker.URL(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
		states := make(chan *amqp091.StateChanged, 16)
		c.NotifyStateChange(states)
		wg.Go(func() {
			for sc := range states { // closed after StateClosed
				switch {
				case sc.From == amqp091.StateReconnecting && sc.To == amqp091.StateOpen:
					f.record(&f.back, time.Now())
				case sc.To == amqp091.StateClosed && sc.From == amqp091.StateReconnecting:
					f.mu.Lock()
					f.gaveUp++
					f.mu.Unlock()
				}
			}
		})
	}
	f.stop = func() {
		for _, c := range conns {
			_ = c.Close()
		}
		wg.Wait()
	}
	return f
}
