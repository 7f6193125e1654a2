package amqp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/internal/testing/conformance"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The harness runs every case on the package's broker, as the user
// conformance.User (alice) on the default vhost, with a queue of each
// case's that Topology declares and the Deliveries stream reads. alice's
// connection limit of 0 is the refusal that is retried (530, "connection
// limit"); the queue redeclared with other arguments the one given up on
// even with BeforeConnect (406 in Topology). Close closes the
// connections with a reason that repeats the case's secrets, as a
// careless operator's would; Stall is SIGSTOP. The client dials a relay
// to the broker, which Kill stops (its connections closed, nothing
// listening) and Serve starts again on the same address: a broker's
// restart takes 5-10s, whose attempts at the case's 200ms backoff cap
// would push the loss out of the History the case reads (64
// transitions). restart_test.go kills the broker itself.
// BeforeConnect's credential becomes alice's password, as a token
// service's would. Passwords, limits and closes go through erl_call
// (rabbittest.Eval): a rabbitmqctl run took 4-8s at load 12, past the
// cases' ConnectTimeout, and the suite past go test's 10 minutes.
func TestConformance(t *testing.T) {
	b := rabbit.Get(t)
	b.Ctl(t, "add_user", conformance.User, "initial")
	b.Ctl(t, "set_permissions", conformance.User, ".*", ".*", ".*")
	t.Cleanup(func() { b.Ctl(t, "delete_user", conformance.User) })
	conformance.Run(t, conformance.Harness{
		Pkg:   "amqp",
		Start: func(t testing.TB) conformance.Server { return startRabbit(t, b) },
		New: func(t testing.TB, srv conformance.Server, o conformance.Options) (conformance.Client, error) {
			s := srv.(*rabbitServer)
			c, err := amqp.New(s.url(o), amqp.Options{
				Topology: func(ctx context.Context, ch *amqp091.Channel) error {
					if err := declare(s.queue)(ctx, ch); err != nil || o.OnConnect == nil {
						return err
					}
					return o.OnConnect(ctx) // the program's OnConnect: amqp's is Topology
				},
				BeforeConnect: s.beforeConnect(o.BeforeConnect),
				Heartbeat:     time.Second,
				Supervisor:    o.Settings,
			})
			if err != nil {
				return nil, err
			}
			return caseClient{c, s.queue}, nil
		},
		Streams: []conformance.Stream{{Name: "Deliveries", Range: func(ctx context.Context, c conformance.Client) iter.Seq2[any, error] {
			cc := c.(caseClient)
			return conformance.Seq2(cc.Deliveries(ctx, cc.queue))
		}}},
		Bad: []conformance.Bad{
			badAMQP("", "amqp: url: empty (want amqp://user:password@host:5672/vhost)", "", amqp.Options{}),
			badAMQP("Heartbeat", "amqp: Heartbeat -1s: negative", "amqp://h/", amqp.Options{Heartbeat: -time.Second}),
			badAMQP("Prefetch", "amqp: Prefetch -1: negative", "amqp://h/", amqp.Options{Prefetch: -1}),
			badAMQP("Replicas[0]", "", "amqp://h/", amqp.Options{Replicas: []string{"http://h/"}}),
		},
		Refusal:  "PRECONDITION_FAILED",
		Silent:   supervisor.ErrSilent,
		Liveness: 1500 * time.Millisecond, // 1.5 Heartbeats
		Skip:     map[string]string{},
		Known:    conformance.Known(nil),
	})
}

// caseClient is a case's Client and the queue its stream reads.
type caseClient struct {
	*amqp.Client
	queue string
}

func badAMQP(field, want, url string, o amqp.Options) conformance.Bad {
	return conformance.Bad{Field: field, Want: want, New: func() error {
		c, err := amqp.New(url, o)
		if c != nil {
			return fmt.Errorf("amqp.New returned a Client with its error %v", err)
		}
		return err
	}}
}

var rabbitCases atomic.Int64

// rabbitServer is one case's queue and alice on the package's broker.
type rabbitServer struct {
	t     testing.TB
	b     *rabbittest.Broker
	queue string
	relay *testkit.Server // to the broker: the client's address
	open  atomic.Int64    // connections the relay holds

	mu         sync.Mutex
	secrets    *conformance.Secrets // the case's, when it has some
	limited    bool
	redeclared bool
	killed     bool
	frozen     bool
}

func startRabbit(t testing.TB, b *rabbittest.Broker) *rabbitServer {
	s := &rabbitServer{t: t, b: b, queue: fmt.Sprintf("conformance-%d", rabbitCases.Add(1))}
	s.relay = testkit.StartServer(t, relayTo(b.Addr(), &s.open))
	t.Cleanup(func() {
		s.Serve() // the next case finds the broker as it was
		s.admin(func(ch *amqp091.Channel) error { _, err := ch.QueueDelete(s.queue, false, false, false); return err })
	})
	return s
}

// url is the case's URL: o.Secrets' password (made alice's) and query
// value, or the initial password.
func (s *rabbitServer) url(o conformance.Options) string {
	password := "initial"
	u := url.URL{Scheme: "amqp", Host: s.relay.Addr, Path: "/"}
	if o.Secrets != nil {
		s.mu.Lock()
		s.secrets = o.Secrets
		s.mu.Unlock()
		u = *mustParse(o.Secrets.URL("amqp", s.relay.Addr, "/"))
		password = o.Secrets.Password
	}
	u.User = url.UserPassword(conformance.User, password)
	s.setPassword(password)
	return u.String()
}

func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u
}

func (s *rabbitServer) setPassword(password string) {
	s.must(s.b.SetPassword(conformance.User, password))
}

// must fails the case on err.
func (s *rabbitServer) must(err error) {
	if err != nil {
		s.t.Fatal(err)
	}
}

// beforeConnect calls f and makes the credential it returns alice's
// password and the attempt's.
func (s *rabbitServer) beforeConnect(f func(context.Context) (string, error)) func(context.Context, *url.URL) error {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, u *url.URL) error {
		tok, err := f(ctx)
		if err != nil {
			return err
		}
		if err := s.b.SetPassword(conformance.User, tok); err != nil {
			return errors.New("the token service is down") // the broker is, and the attempt fails anyway
		}
		u.User = url.UserPassword(conformance.User, tok)
		return nil
	}
}

// admin runs f on a channel of the broker's own user.
func (s *rabbitServer) admin(f func(*amqp091.Channel) error) {
	conn, err := amqp091.Dial(s.b.URL())
	if err != nil {
		s.t.Errorf("conformance: admin connection: %v", err)
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err == nil {
		err = f(ch)
	}
	if err != nil {
		s.t.Errorf("conformance: %v", err)
	}
}

func (s *rabbitServer) Serve() {
	s.mu.Lock()
	killed, frozen, limited, redeclared := s.killed, s.frozen, s.limited, s.redeclared
	s.killed, s.frozen, s.limited, s.redeclared = false, false, false, false
	s.mu.Unlock()
	if frozen {
		s.b.Thaw(s.t)
	}
	if killed {
		s.relay.Restart()
	}
	if limited {
		s.must(s.b.ClearUserLimits(conformance.User))
	}
	if redeclared {
		s.admin(func(ch *amqp091.Channel) error { _, err := ch.QueueDelete(s.queue, false, false, false); return err })
	}
}

func (s *rabbitServer) Refuse(permanent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !permanent {
		s.limited = true
		s.must(s.b.SetUserLimits(conformance.User, `{"max-connections": 0}`))
		return
	}
	s.redeclared = true
	s.admin(func(ch *amqp091.Channel) error {
		if _, err := ch.QueueDelete(s.queue, false, false, false); err != nil {
			return err
		}
		_, err := ch.QueueDeclare(s.queue, true, false, false, false, amqp091.Table{"x-max-length": int32(1)})
		return err
	})
}

// Close closes every client connection with a reason that repeats the
// case's password and newest BeforeConnect credential.
func (s *rabbitServer) Close() {
	reason := "closed by the operator"
	s.mu.Lock()
	if s.secrets != nil {
		reason += ": password " + s.secrets.Password
		if toks := s.secrets.Tokens(); len(toks) > 0 {
			reason += ", token " + toks[len(toks)-1]
		}
	}
	s.mu.Unlock()
	s.must(s.b.CloseAllConnections(reason))
}

func (s *rabbitServer) Kill() {
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	s.relay.Stop()
}

func (s *rabbitServer) Stall() {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
	s.b.Freeze(s.t)
}

// relayTo returns a testkit.Server's handler that relays a connection to
// addr until either side closes it or the server stops, counted in open.
func relayTo(addr string, open *atomic.Int64) func(net.Conn, <-chan struct{}) {
	return func(c net.Conn, quit <-chan struct{}) {
		open.Add(1)
		defer open.Add(-1)
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		var wg sync.WaitGroup
		ended := make(chan struct{}, 2)
		for _, p := range [][2]net.Conn{{up, c}, {c, up}} {
			wg.Go(func() { _, _ = io.Copy(p[0], p[1]); ended <- struct{}{} })
		}
		select {
		case <-ended:
		case <-quit:
		}
		_, _ = c.Close(), up.Close()
		wg.Wait()
	}
}

// Open returns how many of the case's connections the relay holds.
func (s *rabbitServer) Open() int { return int(s.open.Load()) }

// Send publishes one message to the case's queue.
func (s *rabbitServer) Send() {
	s.admin(func(ch *amqp091.Channel) error {
		return ch.PublishWithContext(context.Background(), "", s.queue, false, false, amqp091.Publishing{Body: []byte("hello")})
	})
}
