package rpc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/supervisor"
)

func TestReplicasAreCheckedAndNamed(t *testing.T) {
	_, err := rpc.New("a:1", rpc.Options{Replicas: []string{""}})
	assert.EqualError(t, err, `rpc: Replicas[0]: empty`)
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	c, err := rpc.New("a:1", rpc.Options{Replicas: []string{"b:2"}})
	require.NoError(t, err)
	assert.Equal(t, "a:1", c.Name())
}
