package rpc_test

import (
	"testing"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// New copies the options: a Handlers map changed afterwards changes
// nothing.
func TestNewCopiesHandlers(t *testing.T) {
	rs := startRPCServer(t, true)
	o := rpc.Options{Handlers: map[string]any{"Client.Hello": hello}}
	c, err := rpc.New(rs.Addr, o)
	require.NoError(t, err)
	o.Handlers["Client.Hello"] = func(_ *rpc2.Client, _ string, reply *string) error {
		*reply = "changed"
		return nil
	}
	testkit.Run(t, c)
	var reply string
	require.NoError(t, c.Call(testkit.CtxWait(t), "Server.CallBack", "x", &reply))
	assert.Equal(t, "hello x", reply)
}

func TestDefaultNameIsTheAddress(t *testing.T) {
	c, err := rpc.New("rpc.internal:7000", rpc.Options{})
	require.NoError(t, err)
	assert.Equal(t, "rpc.internal:7000", c.Name())
	assert.Equal(t, "rpc.internal:7000", c.Status().Name)

	c, err = rpc.New("rpc.internal:7000", rpc.Options{Supervisor: supervisor.Settings{Name: "jobs"}})
	require.NoError(t, err)
	assert.Equal(t, "jobs", c.Name(), "the program's Name wins")

	c, err = rpc.New("rpc.internal:7000", rpc.Options{Replicas: []string{"rpc2.internal:7000"}})
	require.NoError(t, err)
	assert.Equal(t, "rpc.internal:7000", c.Name(), "with Replicas too")
}
