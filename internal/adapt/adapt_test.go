package adapt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/adapt"
	"github.com/redial-go/redial/supervisor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestChain(t *testing.T) {
	base := errors.New("401")
	adapter := func(err error) error { return backoff.Permanent(err) }
	program := func(err error) error { return fmt.Errorf("feed: %w", err) }
	c := adapt.Chain(adapter, nil, func(error) error { return nil }, program)
	got := c(base)
	assert.True(t, backoff.IsPermanent(got), "the program's step kept the adapter's class")
	assert.ErrorIs(t, got, base)
	assert.Equal(t, "feed: 401", got.Error())
	assert.NoError(t, c(nil))
}

type nopConnector struct{}

func (nopConnector) Connect(context.Context) (int, error) { return 1, nil }
func (nopConnector) Close(int) error                      { return nil }

func TestNewSaysTheAdaptersPrefix(t *testing.T) {
	sp := adapt.Spec{Pkg: "feed", Name: "ws://h/x"}
	_, err := adapt.New(sp, nopConnector{}, supervisor.Options[int]{Settings: supervisor.Settings{ConnectTimeout: -time.Second}})
	assert.EqualError(t, err, "feed: Supervisor.ConnectTimeout -1s: negative")
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)

	_, err = adapt.New(sp, nopConnector{}, supervisor.Options[int]{Settings: supervisor.Settings{Backoff: backoff.Config{Cap: 48 * time.Hour}}})
	assert.EqualError(t, err, "feed: Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s")
	assert.ErrorIs(t, err, backoff.ErrInvalidOptions)

	s, err := adapt.New(sp, nopConnector{}, supervisor.Options[int]{})
	require.NoError(t, err)
	assert.Equal(t, "ws://h/x", s.Name(), "the default Name is the target")
	s, err = adapt.New(sp, nopConnector{}, supervisor.Options[int]{Settings: supervisor.Settings{Name: "mine"}})
	require.NoError(t, err)
	assert.Equal(t, "mine", s.Name())
}

func TestSilent(t *testing.T) {
	err := adapt.Silent("heartbeat failed")
	assert.EqualError(t, err, "heartbeat failed")
	assert.ErrorIs(t, fmt.Errorf("%w: no pong", err), supervisor.ErrSilent)
	assert.NotErrorIs(t, err, adapt.Silent("heartbeat failed"), "each is a sentinel of its own")
}
