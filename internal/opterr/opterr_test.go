package opterr_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/opterr"
)

func TestShape(t *testing.T) {
	err := opterr.New("websocket", "PingInterval", -time.Second, "negative")
	assert.EqualError(t, err, "websocket: PingInterval -1s: negative")
	assert.ErrorIs(t, err, opterr.ErrInvalid)

	assert.EqualError(t, opterr.New("tcp", "Address", "x", "missing port"), `tcp: Address "x": missing port`)
	assert.EqualError(t, opterr.New("rpc", "Handlers[\"m\"]", nil, "nil func"), `rpc: Handlers["m"]: nil func`)
}

func TestNest(t *testing.T) {
	inner := &opterr.Error{Pkg: "backoff", Field: "Cap", Value: "48h0m0s", Problem: "longer than 24h0m0s"}
	err := opterr.Nest(opterr.Nest(inner, "supervisor", "Backoff"), "websocket", "Supervisor")
	assert.EqualError(t, err, "websocket: Supervisor.Backoff.Cap 48h0m0s: longer than 24h0m0s")
	assert.ErrorIs(t, err, opterr.ErrInvalid)
	assert.EqualError(t, inner, "backoff: Cap 48h0m0s: longer than 24h0m0s", "Nest leaves the original alone")

	assert.EqualError(t, opterr.Nest(errors.New("boom"), "tcp", "TLS"), "tcp: TLS: boom")
	assert.ErrorIs(t, opterr.Nest(errors.New("boom"), "tcp", "TLS"), opterr.ErrInvalid)
	assert.NoError(t, opterr.Nest(nil, "tcp", "TLS"))
}

func TestDuration(t *testing.T) {
	assert.NoError(t, opterr.Duration("p", "F", 0))
	assert.NoError(t, opterr.Duration("p", "F", opterr.MaxDuration))
	assert.EqualError(t, opterr.Duration("p", "F", -time.Second), "p: F -1s: negative")
	assert.EqualError(t, opterr.Duration("p", "F", opterr.MaxDuration+time.Hour), "p: F 25h0m0s: longer than 24h0m0s")
}
