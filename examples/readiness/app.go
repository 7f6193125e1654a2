package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/adapters/tcp"
	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	redialprom "github.com/redial-go/redial/health/prometheus"
	"github.com/redial-go/redial/supervisor"
)

// app is the supervised connections, their upstreams and the HTTP handlers.
type app struct {
	reg       health.Registry
	mux       *http.ServeMux
	upstreams map[string]*upstream
	feed      *supervisor.Supervisor[*websocket.Conn]
	cache     *supervisor.Supervisor[net.Conn]
	cancel    context.CancelFunc
	failed    chan error // the first critical supervisor that gave up: the program exits
	wg        sync.WaitGroup
}

// quick is the backoff of this example: a restarted upstream is noticed
// within a second.
var quick = backoff.Config{Base: 100 * time.Millisecond, Cap: time.Second}

// start starts the upstreams and the supervisors; each supervisor logs its
// state changes on w (connected, each failed attempt and lost connection
// with the wait, gave up), named by its target.
func start(ctx context.Context, w io.Writer, dsn string) (*app, error) {
	a := &app{mux: http.NewServeMux(), upstreams: map[string]*upstream{}, failed: make(chan error, 1)}
	settings := supervisor.Settings{Backoff: quick, Logger: slog.New(slog.NewTextHandler(w, nil))}
	ctx, a.cancel = context.WithCancel(ctx)
	if err := a.startUpstreams(); err != nil {
		a.stop()
		return nil, err
	}
	var err error
	a.feed, err = redialws.New("ws://"+a.upstreams["feed"].addr+"/feed", redialws.Options{
		PingInterval: time.Second,
		PingTimeout:  time.Second,
		Supervisor:   settings,
	})
	if err == nil {
		a.cache, err = tcp.New(a.upstreams["cache"].addr, tcp.Options{
			Supervisor: settings,
		})
	}
	if err != nil {
		a.stop()
		return nil, err
	}
	// The supervisors are named by their targets (redacted), the probes
	// and metrics by the names given here.
	a.reg.Add("feed", a.feed, health.SourceOptions{Critical: true})
	a.reg.Add("cache", a.cache, health.SourceOptions{}) // the app works without it: not critical
	a.wg.Go(func() { a.critical(a.feed.Run(ctx)) })
	a.wg.Go(func() { readFeed(ctx, a.feed) })
	a.wg.Go(func() { _ = a.cache.Run(ctx) })
	a.wg.Go(func() { readCache(ctx, a.cache) })
	if dsn != "" {
		pool, err := postgres.NewPool(dsn, postgres.PoolOptions{Supervisor: settings})
		if err != nil {
			a.stop()
			return nil, err
		}
		a.reg.Add("orders-db", pool, health.SourceOptions{Critical: true})
		a.wg.Go(func() { a.critical(pool.Run(ctx)) })
	}
	return a, a.routes()
}

func (a *app) startUpstreams() error {
	for name, serve := range map[string]func(*upstream, net.Listener){"feed": wsFeed, "cache": tcpEcho} {
		u, err := newUpstream(serve)
		if err != nil {
			return err
		}
		a.upstreams[name] = u
	}
	return nil
}

func (a *app) routes() error {
	collector, err := redialprom.New(&a.reg)
	if err != nil {
		return err
	}
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collector)
	a.mux.Handle("GET /readyz", healthhttp.ReadyHandler(&a.reg))
	a.mux.Handle("GET /livez", healthhttp.LiveHandler(&a.reg))
	a.mux.Handle("GET /metrics", promhttp.HandlerFor(metrics, promhttp.HandlerOpts{}))
	a.mux.HandleFunc("POST /upstream/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		u := a.upstreams[r.PathValue("name")]
		switch {
		case u == nil:
			http.Error(w, "no such upstream", http.StatusNotFound)
		case r.PathValue("action") == "stop":
			u.Stop()
		case r.PathValue("action") == "start":
			if err := u.Start(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
		default:
			http.Error(w, "stop or start", http.StatusBadRequest)
		}
	})
	return nil
}

// critical records a critical supervisor's Run error: one that gave up
// for good (a wrong password, say) ends the program, since no restart of
// the connection can help it. The first one wins.
func (a *app) critical(err error) {
	if err != nil {
		select {
		case a.failed <- err:
		default:
		}
	}
}

// stop ends every supervisor and upstream.
func (a *app) stop() {
	a.cancel()
	a.wg.Wait()
	for _, u := range a.upstreams {
		u.Stop()
	}
}

// readFeed reads the feed, as a program does; Messages reports failures
// to the supervisor and ends when it stops or gives up.
func readFeed(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) {
	for range redialws.Messages(ctx, s) {
	}
}

// readCache is the cache connection's reader: it sees EOF when the cache
// goes away and reports it.
func readCache(ctx context.Context, s *supervisor.Supervisor[net.Conn]) {
	buf := make([]byte, 512)
	for conn := range s.Connections(ctx) {
		var err error
		for err == nil {
			_, err = conn.Read(buf)
		}
		s.Invalidate(conn, err)
	}
}
