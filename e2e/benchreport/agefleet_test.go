package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/supervisor"
)

// fleetConn is a connection of fleetConnector: it never breaks.
type fleetConn struct{ id int }

// fleetConnector counts every connection after a supervisor's first by
// the second (since t0) it was dialed in.
type fleetConnector struct {
	mu        *sync.Mutex
	perSecond []int
	t0        time.Time
	dialed    int
}

func (f *fleetConnector) Connect(context.Context) (*fleetConn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dialed++
	if sec := int(time.Since(f.t0) / time.Second); f.dialed > 1 && sec < len(f.perSecond) {
		f.perSecond[sec]++
	}
	return &fleetConn{id: f.dialed}, nil
}

func (f *fleetConnector) Close(*fleetConn) error { return nil }

func (f *fleetConnector) Watch(ctx context.Context, _ *fleetConn) error {
	<-ctx.Done()
	return ctx.Err()
}

// ageFleet connects n supervisors at the same virtual instant with
// MaxConnectionAge age and jitter (0: the default) and counts their
// replacements a second for 12 ages. It returns them and the mean and
// busiest second from the first second one can be due.
func ageFleet(t *testing.T, n int, age, jitter time.Duration) (total int, mean float64, busiest int) {
	synctest.Test(t, func(t *testing.T) {
		run := 12 * age
		var mu sync.Mutex
		perSecond := make([]int, int(run/time.Second))
		o := supervisor.Options[*fleetConn]{Settings: supervisor.Settings{MaxConnectionAge: age, MaxConnectionAgeJitter: jitter}}
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		t0 := time.Now()
		for range n {
			s, err := supervisor.New[*fleetConn](&fleetConnector{mu: &mu, perSecond: perSecond, t0: t0}, o)
			require.NoError(t, err)
			wg.Go(func() { _ = s.Run(ctx) })
		}
		time.Sleep(run)
		cancel()
		wg.Wait()
		if jitter == 0 {
			jitter = age / 2
		}
		first := int((age - jitter) / time.Second)
		for _, c := range perSecond[first:] {
			total += c
			busiest = max(busiest, c)
		}
		mean = float64(total) / float64(len(perSecond)-first)
	})
	return total, mean, busiest
}

// The sweep behind BENCHMARKS.md's MaxConnectionAgeJitter table, which
// benchreport's lifecycle section runs (REDIAL_AGE_SWEEP=1) and parses.
func TestMaxConnectionAgeJitterSweep(t *testing.T) {
	if os.Getenv("REDIAL_AGE_SWEEP") == "" {
		t.Skip("a measurement for benchreport: set REDIAL_AGE_SWEEP=1")
	}
	for _, age := range []time.Duration{10 * time.Second, time.Minute} {
		for _, div := range []int{10, 4, 3, 2} {
			jitter := age / time.Duration(div)
			if div == 2 {
				jitter = 0 // the default, age/2
			}
			t.Run(fmt.Sprintf("%v/%d", age, div), func(t *testing.T) {
				total, mean, busiest := ageFleet(t, fleetN, age, jitter)
				t.Logf("age %v jitter age/%d: %d replacements, mean %.2f/s, busiest second %d (%.2fx)", age, div, total, mean, busiest, float64(busiest)/mean)
			})
		}
	}
}
