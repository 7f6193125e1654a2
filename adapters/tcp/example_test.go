package tcp_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"time"

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

// The program reads each live connection until it fails and records why
// with Invalidate; the supervisor dials the next one.
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go greetAndHangUp(ln)

	s, err := tcp.New(ln.Addr().String(), tcp.Options{
		Supervisor: supervisor.Settings{
			Name:    "greeter",
			Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Run(ctx)

	n := 0
	for conn := range s.Connections(ctx) { // waits while there is no connection
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			fmt.Println("read:", sc.Text())
		}
		// A nil Err means io.EOF, the server hung up: say so, or Status
		// says only "connection invalidated".
		err := cmp.Or(sc.Err(), io.EOF)
		s.Invalidate(conn, err)
		fmt.Println("connection ended:", err)
		if n++; n == 3 {
			cancel()
		}
	}

	<-s.Done()
	fmt.Println(s.Err(), s.Status().State)
	// Output:
	// read: hello
	// connection ended: EOF
	// read: hello
	// connection ended: EOF
	// read: hello
	// connection ended: EOF
	// <nil> stopped
}

// Do runs one exchange on the live connection; an error from it breaks
// the connection, and the supervisor dials again.
func Example_do() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go greetAndHangUp(ln)

	s, err := tcp.New(ln.Addr().String(), tcp.Options{
		Supervisor: supervisor.Settings{
			Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go s.Run(ctx)

	for range 3 {
		err := s.Do(ctx, func(ctx context.Context, conn net.Conn) error {
			greeting, err := bufio.NewReader(conn).ReadString('\n')
			fmt.Printf("read %q\n", greeting)
			return err // io.EOF breaks conn: the next Do gets a new one
		})
		fmt.Println("do:", err)
	}

	cancel()
	<-s.Done()
	fmt.Println(s.Err(), s.Status().State)
	// Output:
	// read "hello\n"
	// do: <nil>
	// read ""
	// do: EOF
	// read "hello\n"
	// do: <nil>
	// <nil> stopped
}
