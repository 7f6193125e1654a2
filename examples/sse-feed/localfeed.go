package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	gosse "github.com/tmaxmax/go-sse"
)

// localFeed is a small event stream for trying the example without a
// server of your own: go-sse's server, publishing "tick N" (id N) every
// tick and keeping the last 1000 for clients that resume. It asks for
// `retry:` and drops every stream after lifetime, as a server behind a
// load balancer with a connection limit does.
type localFeed struct {
	*httptest.Server
	URL string

	stop context.CancelFunc
	done chan struct{}
	sse  *gosse.Server
}

func startLocalFeed(lifetime, tick, retry time.Duration) (*localFeed, error) {
	replayer, err := gosse.NewFiniteReplayer(1000, false)
	if err != nil {
		return nil, err
	}
	f := &localFeed{sse: &gosse.Server{Provider: &gosse.Joe{Replayer: replayer}}, done: make(chan struct{})}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), lifetime)
		defer cancel()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: %d\n\n", retry.Milliseconds())
		w.(http.Flusher).Flush()
		f.sse.ServeHTTP(w, r.WithContext(ctx))
	}))
	f.URL = f.Server.URL + "/events"
	ctx, stop := context.WithCancel(context.Background())
	f.stop = stop
	go f.publish(ctx, tick)
	return f, nil
}

// publish publishes a tick every tick until ctx ends.
func (f *localFeed) publish(ctx context.Context, tick time.Duration) {
	defer close(f.done)
	t := time.NewTicker(tick)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m := &gosse.Message{ID: gosse.ID(strconv.Itoa(n)), Type: gosse.Type("tick")}
		m.AppendData("tick " + strconv.Itoa(n))
		_ = f.sse.Publish(m)
	}
}

// Close stops publishing, ends every stream and the server.
func (f *localFeed) Close() {
	f.stop()
	<-f.done
	_ = f.sse.Shutdown(context.Background())
	f.Server.Close()
}
