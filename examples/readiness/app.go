package main

import (
	"context"
	"errors"
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
	wg        sync.WaitGroup
}

// quick is the backoff of this example: a restarted upstream is noticed
// within a second.
var quick = backoff.Config{Base: 100 * time.Millisecond, Cap: time.Second}

func start(ctx context.Context, dsn string) (*app, error) {
	a := &app{mux: http.NewServeMux(), upstreams: map[string]*upstream{}}
	ctx, a.cancel = context.WithCancel(ctx)
	if err := a.startUpstreams(); err != nil {
		a.stop()
		return nil, err
	}
	var err error
	a.feed, err = redialws.New(redialws.Options{
		URL:          "ws://" + a.upstreams["feed"].addr + "/feed",
		PingInterval: time.Second,
		PingTimeout:  time.Second,
		Supervisor:   supervisor.Options[*websocket.Conn]{Name: "feed", Backoff: quick},
	})
	if err == nil {
		a.cache, err = tcp.New(tcp.Options{
			DialOptions: tcp.DialOptions{Address: a.upstreams["cache"].addr},
			Supervisor:  supervisor.Options[net.Conn]{Name: "cache", Backoff: quick},
		})
	}
	if err != nil {
		a.stop()
		return nil, err
	}
	a.reg.Add("feed", a.feed, true)
	a.reg.Add("cache", a.cache, false) // the app works without it: not critical
	a.wg.Go(func() { _ = a.feed.Run(ctx) })
	a.wg.Go(func() { readFeed(ctx, a.feed) })
	a.wg.Go(func() { _ = a.cache.Run(ctx) })
	a.wg.Go(func() { readCache(ctx, a.cache) })
	if dsn != "" {
		pool, err := postgres.NewPool(postgres.PoolOptions{Options: postgres.Options{DSN: dsn, Name: "orders-db", Backoff: quick}})
		if err != nil {
			a.stop()
			return nil, err
		}
		a.reg.Add("orders-db", pool, true)
		a.wg.Go(func() { _ = pool.Run(ctx) })
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
	a.mux.Handle("GET /readyz", a.reg.ReadyHandler())
	a.mux.Handle("GET /livez", a.reg.LiveHandler())
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

// stop ends every supervisor and upstream.
func (a *app) stop() {
	a.cancel()
	a.wg.Wait()
	for _, u := range a.upstreams {
		u.Stop()
	}
}

// readFeed reads the feed, as a program does; Read reports failures.
func readFeed(ctx context.Context, s *supervisor.Supervisor[*websocket.Conn]) {
	for {
		_, _, err := redialws.Read(ctx, s)
		if ctx.Err() != nil || errors.Is(err, supervisor.ErrFailed) || errors.Is(err, supervisor.ErrStopped) {
			return
		}
	}
}

// readCache is the cache connection's reader: it sees EOF when the cache
// goes away and reports it.
func readCache(ctx context.Context, s *supervisor.Supervisor[net.Conn]) {
	conn, err := s.Conn(ctx)
	buf := make([]byte, 512)
	for err == nil {
		for err == nil {
			_, err = conn.Read(buf)
		}
		conn, err = tcp.Reconnect(ctx, s, conn, err)
	}
}
