// Command admit-return shows a planned return: a WebSocket server that
// takes -rate new connections a second with package admit's Planner, and
// -n redial clients that all come at once, as after a restart. It prints,
// second by second, the connections the server took against its plan and
// the 503s that sent the rest to their slots.
//
//	go run ./examples/admit-return
//	go run ./examples/admit-return -n 2000 -rate 400
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/admit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("admit-return", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 1000, "clients")
	rate := fs.Int("rate", 200, "new connections the server takes a second")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *n < 1 || *n > 20000 {
		fmt.Fprintln(stderr, "admit-return: -n must be in [1, 20000]")
		return 2
	}
	planner, err := admit.New(admit.Config{Rate: float64(*rate)})
	if err != nil {
		fmt.Fprintln(stderr, "admit-return:", err)
		return 2
	}
	rec, err := returnOf(ctx, planner, *n, *rate)
	if err != nil {
		fmt.Fprintln(stderr, "admit-return:", err)
		return 1
	}
	rec.print(stdout, *n, *rate)
	return 0
}

// record is the server's: when it took each connection and when it sent
// a client away, since the clients started.
type record struct {
	mu       sync.Mutex
	start    time.Time
	taken    []time.Duration
	refused  []time.Duration
	complete chan struct{} // closed when n were taken
	n        int
}

func (r *record) add(to *[]time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*to = append(*to, time.Since(r.start))
	if len(r.taken) == r.n && to == &r.taken {
		close(r.complete)
	}
}

// returnOf serves WebSocket connections behind the planner and starts n
// clients at once; it returns the record when every one was taken.
func returnOf(ctx context.Context, planner *admit.Planner, n, rate int) (*record, error) {
	rec := &record{start: time.Now(), complete: make(chan struct{}), n: n}
	serverCtx, stopServer := context.WithCancel(context.Background())
	defer stopServer()
	feed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		rec.add(&rec.taken)
		_, _, _ = c.Read(serverCtx) // hold it until the end
	})
	admitted := planner.Handler(feed)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		admitted.ServeHTTP(sw, r)
		if sw.code == http.StatusServiceUnavailable {
			rec.add(&rec.refused)
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	clientsCtx, stopClients := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopClients(); wg.Wait() }()
	url := "ws://" + ln.Addr().String() + "/feed"
	rec.start = time.Now()
	for range n {
		s, err := redialws.New(url, redialws.Options{}) // redial's defaults
		if err != nil {
			return nil, err
		}
		wg.Go(func() { _ = s.Run(clientsCtx) })
	}
	limit := time.NewTimer(time.Duration(n)*time.Second/time.Duration(rate)*2 + 30*time.Second)
	defer limit.Stop()
	select {
	case <-rec.complete:
	case <-limit.C:
		return nil, errors.New("not every client was back in twice the plan")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return &record{taken: rec.taken, refused: rec.refused}, nil
}

// print writes the timeline from the first arrival: each second's
// connections taken against the plan, and the 503s.
func (r *record) print(w io.Writer, n, rate int) {
	first := slices.Min(r.taken) // the first arrival was taken at once: the plan starts there
	if len(r.refused) > 0 {
		first = min(first, slices.Min(r.refused))
	}
	for _, ds := range [][]time.Duration{r.taken, r.refused} {
		for i := range ds {
			ds[i] -= first
		}
	}
	last := slices.Max(r.taken)
	secs := int(last/time.Second) + 1
	taken, refused := make([]int, secs), make([]int, secs)
	for _, d := range r.taken {
		taken[int(d/time.Second)]++
	}
	for _, d := range r.refused {
		if s := int(d / time.Second); s < secs {
			refused[s]++
		}
	}
	fmt.Fprintf(w, "%d redial clients at once; the server takes %d a second (package admit)\n\n", n, rate)
	fmt.Fprintf(w, "second   taken   plan   503s\n")
	planned := 0
	for s := range secs {
		plan := min(rate, n-planned)
		planned += plan
		bar := strings.Repeat("#", taken[s]*40/max(rate, 1))
		fmt.Fprintf(w, "%4d   %6d %6d %6d   %s\n", s, taken[s], plan, refused[s], bar)
	}
	ideal := time.Duration(n) * time.Second / time.Duration(rate)
	fmt.Fprintf(w, "\nall %d back in %.2f s (the plan: %.2f s, %.3fx); %d sent to their slots with a 503\n",
		n, last.Seconds(), ideal.Seconds(), last.Seconds()/ideal.Seconds(), len(r.refused))
}

// statusWriter remembers the status code; it lets the upgrade through.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
