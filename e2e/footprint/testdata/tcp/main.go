// Command tcp is the smallest program that supervises a TCP connection
// with redial: the footprint test measures its binary.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/redial-go/redial/adapters/tcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	link, err := tcp.New("127.0.0.1:7000", tcp.Options{})
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
