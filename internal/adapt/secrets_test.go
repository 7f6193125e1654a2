package adapt_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// refusal is a type an adapter keeps in its errors' chain (a
// HandshakeError).
type refusal struct{ code int }

func (r *refusal) Error() string { return "refused" }

// masking is an adapter's connector: its errors pass its set, keeping a
// refusal, as httpcore's Safe and amqp's safe do.
type masking struct{ set *redact.Set }

func (m masking) Connect(context.Context) (*int, error) {
	raw := errors.New("401: X-Api-Key: k3y-abcdef, cookie sid=abcdef123 rejected")
	return nil, m.set.Error(raw, &refusal{401})
}
func (masking) Close(*int) error { return nil }

// Settings.Secrets join the adapter's set: its errors come out masked
// once, and the supervisor, finding nothing left to mask, keeps their
// chain (errors.As reaches the adapter's type, not the raw error).
func TestSecretsJoinTheAdaptersSet(t *testing.T) {
	set := redact.NewSet(redact.Target{}.With("own-secret-1"))
	o := supervisor.Options[*int]{Settings: supervisor.Settings{MaxAttempts: 1, Secrets: []string{"k3y-abcdef", "abcdef123"}}}
	s, err := adapt.New(adapt.Spec{Pkg: "x", Name: "x", Set: set}, supervisor.Connector[*int](masking{set}), o)
	require.NoError(t, err)
	assert.Equal(t, "xxxxx xxxxx xxxxx", set.Text("own-secret-1 k3y-abcdef abcdef123"))
	runErr := s.Run(t.Context())
	require.ErrorIs(t, runErr, supervisor.ErrFailed)
	for _, err := range []error{runErr, s.Status().Err} {
		assert.NotContains(t, err.Error(), "k3y-abcdef")
		assert.NotContains(t, err.Error(), "abcdef123")
		r, ok := errors.AsType[*refusal](err)
		if assert.True(t, ok, "the adapter's type is kept") {
			assert.Equal(t, 401, r.code)
		}
	}
}
