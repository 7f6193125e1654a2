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
// critical) and, with -dsn, a PostgreSQL pool (critical). When a critical
// connection gives up for good (a wrong password, say) it exits 1 with one
// line that says why.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("readiness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "where to serve the probes")
	dsn := fs.String("dsn", "", "optional PostgreSQL DSN: adds a critical pool")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := serve(ctx, stdout, *addr, *dsn); err != nil {
		fmt.Fprintln(stderr, "readiness:", err)
		return 1
	}
	return 0
}

// serve runs the app and its HTTP server until ctx ends (nil) or a
// critical connection gives up for good (its error).
func serve(ctx context.Context, w io.Writer, addr, dsn string) error {
	a, err := start(ctx, w, dsn)
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
	failed := make(chan error, 1)
	go func() {
		select {
		case <-ctx.Done():
		case err := <-a.failed:
			failed <- err
		}
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	select {
	case err := <-failed:
		return err
	default:
		return nil
	}
}
