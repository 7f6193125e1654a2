package rpc_test

import (
	"context"
	"fmt"
	"net"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp/rpc"
)

// The server calls back into the client on every connection: the client's
// handlers are registered on each new rpc2.Client.
func Example() {
	srv := rpc2.NewServer()
	rpc.HandlePing(srv)
	srv.Handle("Server.Greet", func(c *rpc2.Client, _ struct{}, reply *string) error {
		var name string
		if err := c.Call("Client.Name", struct{}{}, &name); err != nil {
			return err
		}
		*reply = "hello, " + name
		return nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go srv.Accept(ln)

	c, err := rpc.New(ln.Addr().String(), rpc.Options{
		Handlers: map[string]any{
			"Client.Name": func(_ *rpc2.Client, _ struct{}, name *string) error {
				*name = "client"
				return nil
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go c.Run(ctx)

	var reply string
	err = c.Call(ctx, "Server.Greet", struct{}{}, &reply) // waits for the connection
	fmt.Println(reply, err)

	cancel()
	<-c.Done()
	fmt.Println(c.Err(), c.Status().State)
	// Output:
	// hello, client <nil>
	// <nil> stopped
}
