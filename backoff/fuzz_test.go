package backoff_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redial-go/redial/backoff"
)

// FuzzNext: for any configuration either New refuses it, naming a field,
// or every delay lies in [0, Cap]; never a panic. The seed corpus lives in
// testdata/fuzz.
func FuzzNext(f *testing.F) {
	f.Add(int(backoff.Decorrelated), int64(time.Second), int64(time.Minute), uint64(1), uint16(100))
	f.Fuzz(func(t *testing.T, strategy int, base, cap int64, seed uint64, n uint16) {
		c := backoff.Config{Strategy: backoff.Strategy(strategy), Base: time.Duration(base), Cap: time.Duration(cap), Seed: seed}
		b, err := backoff.New(c)
		if err != nil {
			if !errors.Is(err, backoff.ErrInvalidOptions) {
				t.Fatalf("New refused %+v with %v, not a bad option", c, err)
			}
			return
		}
		limit := b.Config().Cap
		for i := range int(n) {
			if d := b.Next(); d < 0 || d > limit {
				t.Fatalf("%+v: Next #%d = %v, want within [0, %v]", c, i, d, limit)
			}
		}
	})
}
