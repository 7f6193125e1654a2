// Command readiness serves Kubernetes-style probes for several supervised
// connections behind one health.Registry:
//
//	go run ./examples/readiness                 # http://127.0.0.1:8080
//	curl -i 127.0.0.1:8080/readyz               # 200 while every critical connection is up
//	curl -i '127.0.0.1:8080/readyz?verbose=1'   # with the (redacted) errors
//	curl -i 127.0.0.1:8080/livez                # 503 only if a critical connection gave up
//	curl 127.0.0.1:8080/metrics                 # Prometheus metrics
//	curl -X POST 127.0.0.1:8080/upstream/feed/stop   # and /start: watch /readyz follow
//
// It starts its own upstreams (a WebSocket feed, critical; a TCP cache, not
// critical) and, with -dsn, a PostgreSQL pool (critical).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "where to serve the probes")
	dsn := flag.String("dsn", "", "optional PostgreSQL DSN: adds a critical pool")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := serve(ctx, os.Stdout, *addr, *dsn); err != nil {
		fmt.Fprintln(os.Stderr, "readiness:", err)
		os.Exit(1)
	}
}

// serve runs the app and its HTTP server until ctx ends.
func serve(ctx context.Context, w io.Writer, addr, dsn string) error {
	a, err := start(ctx, dsn)
	if err != nil {
		return err
	}
	defer a.stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.mux, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(w, "probes on http://%s: /readyz /livez /metrics; POST /upstream/{feed,cache}/{stop,start}\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
