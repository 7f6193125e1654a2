package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// apiError is a program's own error that carries the request it refused.
type apiError struct{ request string }

func (e *apiError) Error() string { return "server refused " + e.request }

// apiConnector refuses every attempt with the headers it sent echoed.
type apiConnector struct{}

func (apiConnector) Connect(context.Context) (*conn, error) {
	return nil, &apiError{request: "GET /feed?pw=p%40ss+w0rd X-Api-Key: k3y-abcdef Cookie: session=abcdef123 (YWJjZGVmMTIz)"}
}
func (apiConnector) Close(*conn) error { return nil }

// A program's own Connector names its secrets: no trace of them, nor of
// the error that held them, nor of their URL and base64 forms, in Status, History, the log, Run's error, Err
// and Conn's error.
func TestSecretsOfAProgramsOwnConnector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		o := exponential(time.Second, time.Minute)
		o.Name = "feed k3y-abcdef"
		o.MaxAttempts = 3
		o.Secrets = []string{"k3y-abcdef", "abcdef123", "p@ss w0rd", ""}
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		r := start(t, apiConnector{}, o)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		_, connErr := r.Conn(ctx)
		cancel()
		var texts []string
		check := func(what string, err error) {
			require.Error(t, err, what)
			texts = append(texts, err.Error())
			var ae *apiError
			assert.False(t, errors.As(err, &ae), "%s: errors.As reached the raw error", what)
		}
		check("Status.Err", st.Err)
		check("Conn", connErr)
		time.Sleep(time.Hour)
		runErr := <-r.done
		check("Run", runErr)
		check("Err", r.Err())
		assert.ErrorIs(t, runErr, supervisor.ErrFailed)
		st = r.Status()
		check("final Status.Err", st.Err)
		texts = append(texts, st.Name, r.Name(), logs.String())
		for _, tr := range r.History() {
			texts = append(texts, fmt.Sprint(tr))
			if tr.Err != nil {
				check("History", tr.Err)
			}
		}
		for _, text := range texts {
			for _, secret := range []string{"k3y-abcdef", "abcdef123", "YWJjZGVmMTIz", "w0rd"} {
				assert.NotContains(t, text, secret)
			}
		}
		assert.Contains(t, st.Err.Error(), "X-Api-Key: xxxxx", "the rest of the text stays")
	})
}

// A secret too short to be masked is a bad option, said without its value.
func TestSecretsTooShort(t *testing.T) {
	o := exponential(time.Second, time.Minute)
	o.Secrets = []string{"abcdef", "k3y"}
	_, err := supervisor.New[*conn](apiConnector{}, o)
	require.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	assert.Equal(t, "supervisor: Secrets[1]: 3 bytes: shorter than 4, it cannot be masked", err.Error())
}
