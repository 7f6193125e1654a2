package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// session stands for a real connection type (net.Conn, *pgx.Conn, ...).
type session struct{ id int }

// flaky refuses its first two attempts, as a server that is still starting.
type flaky struct{ attempts int }

func (f *flaky) Connect(ctx context.Context) (*session, error) {
	f.attempts++
	if f.attempts <= 2 {
		return nil, errors.New("connection refused")
	}
	return &session{id: f.attempts}, nil
}

func (f *flaky) Close(*session) error { return nil }

func Example() {
	s, err := supervisor.New[*session](&flaky{}, supervisor.Options[*session]{
		Settings: supervisor.Settings{
			Name:    "example",
			Backoff: backoff.Config{Base: time.Millisecond, Cap: 10 * time.Millisecond},
		},
		OnConnect: func(ctx context.Context, c *session) error {
			fmt.Println("subscribing on session", c.id)
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	// Do waits through the two refusals, then runs once with the session.
	err = s.Do(ctx, func(ctx context.Context, c *session) error {
		fmt.Println("using session", c.id)
		return nil
	})
	st := s.Status()
	fmt.Println(err, st.State, st.Connects)

	cancel()
	fmt.Println(<-done, s.Status().State)
	<-s.Done()
	fmt.Println(s.Err())
	// Output:
	// subscribing on session 3
	// using session 3
	// <nil> connected 1
	// <nil> stopped
	// <nil>
}

// A program shutting down drains: readiness 503 at once, new work
// refused, the work under way finished, a goodbye, then Stopped. In a
// real program the trigger is SIGTERM (signal.NotifyContext).
func ExampleSupervisor_Drain() {
	s, err := supervisor.New[*session](&flaky{attempts: 2}, supervisor.Options[*session]{})
	if err != nil {
		panic(err)
	}
	go func() { _ = s.Run(context.Background()) }()
	working := make(chan struct{})
	go func() {
		_ = s.Do(context.Background(), func(ctx context.Context, c *session) error {
			close(working)
			time.Sleep(10 * time.Millisecond) // a query under way
			fmt.Println("query done")
			return nil
		})
	}()
	<-working
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Println("drained:", s.Drain(ctx))
	fmt.Println(s.Status().State, errors.Is(s.Do(ctx, nil), supervisor.ErrDraining))
	// Output:
	// query done
	// drained: <nil>
	// stopped true
}
