// Command tlsdialer is dialer with crypto/tls, what adapters/tcp/tcptls wraps:
// the footprint test measures what redial adds to it.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d := tls.Dialer{Config: &tls.Config{}}
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:7000")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	_, _ = io.Copy(os.Stdout, conn)
}
