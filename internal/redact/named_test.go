package redact_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/redact"
)

// A named secret is masked with the forms a transport derives from it.
func TestNamedMasksTheDerivedForms(t *testing.T) {
	tg := redact.Named("api:k3y abc", "", "ab")
	assert.Equal(t, "xxxxx xxxxx xxxxx xxxxx ab", tg.Text("api:k3y abc api%3Ak3y+abc api:k3y%20abc YXBpOmszeSBhYmM= ab"))
	assert.True(t, tg.Holds("x YXBpOmszeSBhYmM= y"))
	assert.False(t, tg.Holds("api:k3y"))
}

// Add joins secrets to a set in use: readers see the old set or the new.
func TestSetAdd(t *testing.T) {
	s := redact.NewSet(redact.Target{}.With("FIRST-SECRET"))
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 100 {
			_ = s.Text("FIRST-SECRET LATER-SECRET")
		}
	})
	s.Add(redact.Named("LATER-SECRET"))
	s.Remember(redact.Target{}.With("HOOK-SECRET"))
	wg.Wait()
	assert.Equal(t, "xxxxx xxxxx xxxxx", s.Text("FIRST-SECRET LATER-SECRET HOOK-SECRET"))
}
