// Command dialer is tcp's program without redial: one net.Dialer
// connection, copied to stdout. The footprint test compares the two.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	_, _ = io.Copy(os.Stdout, conn)
}
