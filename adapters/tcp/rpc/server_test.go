package rpc_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// rpcServer is an rpc2 server on a restartable TCP server, with methods:
//   - rpc.HandlePing (unless made without it);
//   - Server.Echo(s) = s;
//   - Server.Fail(s): answers the error s;
//   - Server.CallBack(name): calls the client's Client.Hello(name) and
//     returns its reply — a server -> client call;
//   - Server.Block(s): replies "late" once release is closed; gives up
//     when the connection closes.
type rpcServer struct {
	*testkit.Server
	release     chan struct{}
	releaseOnce sync.Once
}

func startRPCServer(t *testing.T, ping bool) *rpcServer {
	return startRPCServerTLS(t, ping, nil)
}

// startRPCServerTLS serves TLS when cfg is set.
func startRPCServerTLS(t *testing.T, ping bool, cfg *tls.Config) *rpcServer {
	srv := rpc2.NewServer()
	rs := &rpcServer{release: make(chan struct{})}
	if ping {
		rpc.HandlePing(srv)
	}
	srv.Handle("Server.Echo", func(_ *rpc2.Client, s string, reply *string) error {
		*reply = s
		return nil
	})
	srv.Handle("Server.Fail", func(_ *rpc2.Client, s string, _ *string) error {
		return errors.New(s)
	})
	srv.Handle("Server.CallBack", func(c *rpc2.Client, name string, reply *string) error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Wait)
		defer cancel()
		return c.CallWithContext(ctx, "Client.Hello", name, reply)
	})
	srv.Handle("Server.Block", func(c *rpc2.Client, _ string, reply *string) error {
		select {
		case <-rs.release:
			*reply = "late"
		case <-c.DisconnectNotify():
		}
		return nil
	})
	rs.Server = testkit.StartServer(t, func(c net.Conn, _ <-chan struct{}) {
		if cfg != nil {
			c = tls.Server(c, cfg)
		}
		srv.ServeConn(c)
	})
	t.Cleanup(rs.unblock)
	return rs
}

func (rs *rpcServer) unblock() { rs.releaseOnce.Do(func() { close(rs.release) }) }

// hello is the client's handler the server calls back.
func hello(_ *rpc2.Client, name string, reply *string) error {
	*reply = "hello " + name
	return nil
}

// newRPC returns a Client with short pings and backoff; change
// adjusts the options first.
func newRPC(t *testing.T, addr string, change func(*rpc.Options)) *rpc.Client {
	t.Helper()
	o := rpc.Options{
		Handlers:     map[string]any{"Client.Hello": hello},
		PingInterval: 100 * time.Millisecond,
		PingTimeout:  100 * time.Millisecond,
		Supervisor: supervisor.Settings{
			Name:    "rpc",
			Backoff: backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	}
	if change != nil {
		change(&o)
	}
	if o.DisablePing { // with pings off, their settings are an error
		o.PingInterval, o.PingTimeout = 0, 0
	}
	r, err := rpc.New(addr, o)
	require.NoError(t, err)
	return r
}
