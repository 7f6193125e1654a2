package backoff_test

import (
	"testing"
	"time"

	cenkalti "github.com/cenkalti/backoff/v5"

	"github.com/redial-go/redial/backoff"
)

var sink time.Duration

// BenchmarkNext measures one Next per strategy and, in the same run, the
// anchor: github.com/cenkalti/backoff/v5's ExponentialBackOff.NextBackOff
// with its defaults (randomization 0.5). Compare ns/op side by side.
func BenchmarkNext(b *testing.B) {
	for _, s := range []backoff.Strategy{backoff.Decorrelated, backoff.Full, backoff.Equal, backoff.Exponential} {
		b.Run(s.String(), func(b *testing.B) {
			bo, err := backoff.New(backoff.Config{Strategy: s, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i&31 == 0 {
					bo.Reset() // stay on the growing part as well as at Cap
				}
				sink = bo.Next()
			}
		})
	}
	b.Run("cenkalti-v5", func(b *testing.B) {
		bo := cenkalti.NewExponentialBackOff()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i&31 == 0 {
				bo.Reset()
			}
			sink = bo.NextBackOff()
		}
	})
}
