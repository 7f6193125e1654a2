package backoff_test

import (
	"testing"
	"time"

	"github.com/redial-go/redial/backoff"
)

// BenchmarkBreakerAllow is Allow on a closed breaker.
func BenchmarkBreakerAllow(b *testing.B) {
	br := mustBreaker(b, backoff.BreakerConfig{})
	b.ReportAllocs()
	for b.Loop() {
		if err := br.Allow(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBreakerRecord is Record on a closed breaker: a success after no
// failure (the healthy path), and a failure followed by a success (which
// takes the lock twice).
func BenchmarkBreakerRecord(b *testing.B) {
	b.Run("success", func(b *testing.B) {
		br := mustBreaker(b, backoff.BreakerConfig{})
		b.ReportAllocs()
		for b.Loop() {
			br.Record(nil)
		}
	})
	b.Run("failure+success", func(b *testing.B) {
		br := mustBreaker(b, backoff.BreakerConfig{})
		b.ReportAllocs()
		for b.Loop() {
			br.Record(errBusy)
			br.Record(nil)
		}
	})
}

// BenchmarkBreakerParallel is Allow then Record(nil) from every P on one
// shared closed breaker.
func BenchmarkBreakerParallel(b *testing.B) {
	br := mustBreaker(b, backoff.BreakerConfig{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if br.Allow() == nil {
				br.Record(nil)
			}
		}
	})
}

// BenchmarkBreakerOpen is Allow refusing: the one path that allocates (the
// error that carries the time left).
func BenchmarkBreakerOpen(b *testing.B) {
	br := mustBreaker(b, backoff.BreakerConfig{Failures: 1, Cooldown: 24 * time.Hour})
	br.Record(errBusy)
	b.ReportAllocs()
	for b.Loop() {
		if br.Allow() == nil {
			b.Fatal("open breaker let a call through")
		}
	}
}
