// Command supervisor is the smallest program that supervises a connection
// of its own type with redial (here a net.Conn from a net.Dialer): the
// footprint test measures its binary.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"

	"github.com/redial-go/redial/supervisor"
)

// dialer is a supervisor.Connector of plain TCP connections.
type dialer struct{ net.Dialer }

func (d *dialer) Connect(ctx context.Context) (net.Conn, error) {
	return d.DialContext(ctx, "tcp", "127.0.0.1:7000")
}

func (d *dialer) Close(c net.Conn) error { return c.Close() }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	link, err := supervisor.New[net.Conn](&dialer{}, supervisor.Options[net.Conn]{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	go func() { _ = link.Run(ctx) }()
	for conn := range link.Connections(ctx) {
		_, err := io.Copy(os.Stdout, conn)
		link.Invalidate(conn, err)
	}
}
