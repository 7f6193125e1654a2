package tcp_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/cenkalti/rpc2"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// greetAndHangUp stands for a real server: it says hello to each
// connection and hangs up, as a server that restarts would.
func greetAndHangUp(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		fmt.Fprintln(c, "hello")
		c.Close()
	}
}

// The program reads from the live connection; when a Read fails it tells
// the supervisor (Reconnect: Invalidate, then wait for a new connection).
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go greetAndHangUp(ln)

	s, err := tcp.New(tcp.Options{
		DialOptions: tcp.DialOptions{Address: ln.Addr().String()},
		Supervisor: supervisor.Options[net.Conn]{
			Name:    "greeter",
			Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	conn, err := s.Conn(ctx) // waits while there is no connection
	for i := 0; err == nil && i < 3; i++ {
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			fmt.Println("read:", sc.Text())
		}
		fmt.Println("connection ended:", sc.Err()) // nil: io.EOF, the server hung up
		conn, err = tcp.Reconnect(ctx, s, conn, cmp.Or(sc.Err(), io.EOF))
	}

	cancel()
	fmt.Println(<-done, s.Status().State)
	// Output:
	// read: hello
	// connection ended: <nil>
	// read: hello
	// connection ended: <nil>
	// read: hello
	// connection ended: <nil>
	// <nil> stopped
}

// The server calls back into the client on every connection: the client's
// handlers are registered on each new rpc2.Client.
func ExampleNewRPC() {
	srv := rpc2.NewServer()
	tcp.HandleHeartbeat(srv)
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

	r, err := tcp.NewRPC(tcp.RPCOptions{
		DialOptions: tcp.DialOptions{Address: ln.Addr().String()},
		Handlers: map[string]any{
			"Client.Name": func(_ *rpc2.Client, _ struct{}, name *string) error {
				*name = "client"
				return nil
			},
		},
		Supervisor: supervisor.Options[*rpc2.Client]{Name: "greeter"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()

	var reply string
	err = r.Call(ctx, "Server.Greet", struct{}{}, &reply) // waits for the connection
	fmt.Println(reply, err)

	cancel()
	fmt.Println(<-done, r.Status().State)
	// Output:
	// hello, client <nil>
	// <nil> stopped
}
