package redact_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/redact"
)

func TestHeaderValuesAndTheirParts(t *testing.T) {
	h := http.Header{"Cookie": {"sid=SESSION1; theme=dark"}, "Authorization": {"Bearer T0KEN-1"}}
	tg := redact.URL(mustURL(t, "ws://h/x")).With(redact.HeaderValues(h)...)
	for _, echo := range []string{"sid=SESSION1", "SESSION1", "T0KEN-1", "Bearer T0KEN-1", "sid=SESSION1; theme=dark"} {
		assert.NotContains(t, tg.Text("server said "+echo), "SESSION1", echo)
		assert.NotContains(t, tg.Text("server said "+echo), "T0KEN-1", echo)
	}
}

// net/http sends a URL's userinfo as Basic authorization: a server that
// echoes the header must not show it.
func TestURLMasksTheBasicAuthorization(t *testing.T) {
	tg := redact.URL(mustURL(t, "ws://SECRET123:@h/x"))
	assert.Equal(t, "auth 'Basic xxxxx' rejected", tg.Text("auth 'Basic U0VDUkVUMTIzOg==' rejected"))
}

func TestSetRemembersTheLastCalls(t *testing.T) {
	s := redact.NewSet(redact.URL(mustURL(t, "ws://h/x?token=FIXED-TOKEN")))
	token := func(i int) string { return fmt.Sprintf("ROTATED-%02d", i) }
	for i := range redact.Recent + 1 {
		s.Remember(redact.Target{}.With(token(i)))
	}
	assert.Contains(t, s.Text(token(0)), token(0), "the oldest of Recent+1 calls is forgotten")
	for i := 1; i <= redact.Recent; i++ {
		assert.Equal(t, "xxxxx", s.Text(token(i)))
	}
	assert.Equal(t, "xxxxx", s.Text("FIXED-TOKEN"), "what the program gave stays")
	s.Remember(redact.Target{}.With(token(1))) // a repeat: the newest again, nothing forgotten
	assert.Equal(t, "xxxxx", s.Text(token(2)))
	s.Remember(redact.Target{}.With(token(99)))
	assert.Equal(t, "xxxxx", s.Text(token(1)), "a repeated call is kept as the newest")
	assert.Contains(t, s.Text(token(2)), token(2))
	err := s.Error(errors.New("refresh failed: " + token(99) + " revoked"))
	assert.Equal(t, "refresh failed: xxxxx revoked", err.Error())
}

func TestSetIsSafeForConcurrentUse(t *testing.T) {
	s := redact.NewSet(redact.Target{})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 100 {
				s.Remember(redact.Target{}.With(fmt.Sprintf("SECRET-%d-%d", i, j)))
				_ = s.Text("SECRET-0-0") // the race detector checks the rest
			}
		})
	}
	wg.Wait()
	s.Remember(redact.Target{}.With("SECRET-LAST"))
	assert.Equal(t, "xxxxx", s.Text("SECRET-LAST"))
}
