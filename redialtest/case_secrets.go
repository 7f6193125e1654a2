package redialtest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// secretOptions are defaults with secrets and a rotating BeforeConnect.
func (e *env) secretOptions() (Options, *Secrets) {
	secrets := NewSecrets()
	o := e.defaults()
	o.Secrets = secrets
	if e.h.Hook != "" {
		o.BeforeConnect = func(context.Context) (string, error) { return secrets.Token(), nil }
	}
	return o, secrets
}

// checkShown checks everything r and the log showed, and that the server
// echoed the secrets it got.
func (e *env) checkShown(r *running, secrets *Secrets) {
	e.t.Helper()
	var s shown
	r.show(&s)
	s.text("the log", e.logs.String())
	s.check(e.t, secrets)
	kinds := []string{"password", "query value", "cookie part"}
	if e.h.Hook != "" {
		kinds = append(kinds, "BeforeConnect credential 1")
	}
	echoed(e.t, e.srv, secrets, kinds...)
}

// secretsRefused: a refusal whose text echoes the request, attempts on
// the killed server, then a refusal for good, which names the first
// BeforeConnect's credential too. Nothing shows a secret.
func secretsRefused(e *env) {
	t := e.t
	o, secrets := e.secretOptions()
	e.refuse()
	r := e.start(o)
	until(t, r.c, "a refused attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 1 })
	e.kill()
	until(t, r.c, "a refused dial", func(st health.Status) bool { return st.ConsecutiveFailures >= 3 })
	e.serve()
	e.refuseForGood()
	if c, ok := e.srv.(ConnCloser); ok {
		c.CloseConns() // a connection made in between
	}
	r.waitEnded("after a refusal for good")
	if !errors.Is(r.runErr, supervisor.ErrFailed) {
		t.Fatalf("Run's error does not wrap ErrFailed: %v", r.runErr)
	}
	r.stop()
	e.checkShown(r, secrets)
}

// secretsClosed: the server ends a connection with a text that echoes the
// request (a close reason); the client reconnects. Nothing shows a secret.
func secretsClosed(e *env) {
	t := e.t
	o, secrets := e.secretOptions()
	r := e.start(o)
	until(t, r.c, "connected", connected(1))
	e.closeConns()
	until(t, r.c, "connected again", connected(2))
	for _, rd := range r.readers {
		rd.waitFor(t, "error for the break", hasError)
	}
	mustNot(t, r.stop(), "Run")
	e.checkShown(r, secrets)
}

// secretsAfterRun: Run's ctx ends while connected; the server answers the
// client's goodbye with a text that echoes the request, which the streams
// may yield after Run returned. Nothing shows a secret.
func secretsAfterRun(e *env) {
	t := e.t
	o, secrets := e.secretOptions()
	r := e.start(o)
	until(t, r.c, "connected", connected(1))
	r.reading(t, e.h)
	mustNot(t, r.stop(), "Run")
	e.checkShown(r, secrets)
}

// secretsCallbacks: the program's own callbacks fail with texts that hold
// its secrets (BeforeConnect naming the credential it set before,
// OnConnect the one it set last). Nothing shows a secret.
func secretsCallbacks(e *env) {
	t, h := e.t, e.h
	secrets := NewSecrets()
	o := e.defaults()
	o.Secrets = secrets
	// An attempt abandoned at ConnectTimeout leaves its callback running
	// beside the next attempt's: the counts are atomic.
	var calls, subscribed atomic.Int64
	o.BeforeConnect = func(context.Context) (string, error) {
		if calls.Add(1) == 2 {
			return "", fmt.Errorf("token refresh failed: %s was revoked", secrets.Tokens()[0])
		}
		return secrets.Token(), nil
	}
	failures := uint64(2) // the refused first attempt, BeforeConnect's
	if h.OnConnect {
		failures++
		o.OnConnect = func(context.Context) error {
			if subscribed.Add(1) == 1 {
				tokens := secrets.Tokens()
				return fmt.Errorf("subscribe: token %s not accepted", tokens[len(tokens)-1])
			}
			return nil
		}
	}
	e.refuse()
	r := e.start(o)
	until(t, r.c, "BeforeConnect's failure", func(st health.Status) bool { return st.ConsecutiveFailures >= 2 })
	e.serve()
	until(t, r.c, "connected after the callbacks' failures", connected(1))
	mustNot(t, r.stop(), "Run")
	var s shown
	r.show(&s)
	s.text("the log", e.logs.String())
	s.check(t, secrets)
	if got := r.c.Status().Failures; got < failures {
		t.Errorf("%d failures, want at least %d: not every callback failed, this case could not fail", got, failures)
	}
}
