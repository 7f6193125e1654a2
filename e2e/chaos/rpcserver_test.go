package chaos

import (
	"net"
	"sync"
	"testing"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
)

// The RPC protocol (github.com/cenkalti/rpc2 over TCP):
//
//	client -> server  Server.Hello(NAME)  in OnConnect: NAME's connection is counted from here
//	client -> server  Server.Work(N)      the server calls Client.Twice(N) back, then answers 2N+1
//	server -> client  Client.Twice(N)     2N
//	client -> server  redial.Heartbeat    the adapter's ping
func startRPCServer(t testing.TB, name string, live *liveCounter) *acceptor {
	srv := rpc2.NewServer()
	rpc.HandlePing(srv)
	srv.Handle("Server.Hello", func(c *rpc2.Client, id string, ok *bool) error {
		st, _ := c.State.Get("conn")
		*ok = st.(*rpcConn).hello(id, live)
		return nil
	})
	srv.Handle("Server.Work", func(c *rpc2.Client, n int64, reply *int64) error {
		var twice int64
		if err := c.Call("Client.Twice", n, &twice); err != nil {
			return err
		}
		*reply = twice + 1
		return nil
	})
	return startAcceptor(t, name, func(c net.Conn) {
		rc := &rpcConn{}
		state := rpc2.NewState()
		state.Set("conn", rc)
		srv.ServeCodecWithState(rpc2.NewGobCodec(c), state) // returns when the connection ends
		rc.ended(live)
	})
}

// rpcConn is what the server knows of one connection: who said hello on
// it, and whether it ended (a Hello handled after that is not counted).
type rpcConn struct {
	mu   sync.Mutex
	id   string
	done bool
}

func (r *rpcConn) hello(id string, live *liveCounter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.id != "" {
		return false
	}
	r.id = id
	live.open(id)
	return true
}

func (r *rpcConn) ended(live *liveCounter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	if r.id != "" {
		live.close(r.id)
	}
}
