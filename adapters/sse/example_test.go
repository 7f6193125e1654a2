package sse_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// A price feed that keeps its history restarts after the second price:
// the Client resumes after the last price it delivered, and misses
// nothing.
func Example() {
	prices := []string{"100", "101", "102"}
	restart := make(chan struct{})
	var (
		mu           sync.Mutex
		lastEventIDs []string // what each request resumed from
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lastEventIDs = append(lastEventIDs, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID")) // 0 for a new client
		for i := from; i < len(prices); i++ {
			fmt.Fprintf(w, "id: %d\nevent: price\ndata: %s\n\n", i+1, prices[i])
			w.(http.Flusher).Flush()
			if i == 1 && from == 0 {
				<-restart // the server restarts here
				return
			}
		}
		<-r.Context().Done()
	}))
	defer srv.Close()

	feed, err := sse.New(srv.URL+"/prices?token=s3cr3t", sse.Options{
		Supervisor: supervisor.Settings{
			Backoff: backoff.Config{Base: 10 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- feed.Run(ctx) }()

	got := 0
	for ev, err := range feed.Events(ctx) {
		if err != nil {
			fmt.Println("lost:", err) // the next stream resumes after the last event delivered
			continue
		}
		fmt.Printf("%s %s: %s\n", ev.ID, ev.Type, ev.Data)
		if got++; got == 2 {
			close(restart)
		}
		if got == 3 {
			break
		}
	}
	cancel()
	mu.Lock()
	fmt.Printf("%v %d %q %s\n", <-done, feed.Status().Connects, lastEventIDs, feed.LastEventID())
	mu.Unlock()
	// The Name is the URL without its token.
	fmt.Println(strings.Replace(feed.Name(), srv.Listener.Addr().String(), "HOST", 1))
	// Output:
	// 1 price: 100
	// 2 price: 101
	// lost: sse: read: the server ended the stream (EOF)
	// 3 price: 102
	// <nil> 2 ["" "2"] 3
	// http://HOST/prices?token=xxxxx
}
