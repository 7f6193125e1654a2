package amqp_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// The harness runs every case on the package's broker, as the user
// redialtest.User (alice) on the default vhost, with a queue of each
// case's that Topology declares and the Deliveries stream reads. alice's
// connection limit of 0 is the refusal that is retried (530, "connection
// limit"); the queue redeclared with other arguments the one given up on
// even with BeforeConnect (406 in Topology). Close closes the
// connections with a reason that repeats the case's secrets, as a
// careless operator's would. The client dials redialtest's Proxy in front
// of the broker, which kills, stalls and refuses: a broker's restart takes
// 5-10s, whose attempts at the case's 200ms backoff cap would push the
// loss out of the History the case reads (64 transitions).
// restart_test.go kills the broker itself.
// BeforeConnect's credential becomes alice's password, as a token
// service's would. Passwords, limits and closes go through erl_call
// (rabbittest.Eval): a rabbitmqctl run took 4-8s at load 12, past the
// cases' ConnectTimeout, and the suite past go test's 10 minutes.
func TestConformance(t *testing.T) {
	b := rabbit.Get(t)
	b.AddUser(t, redialtest.User, "initial", true)
	redialtest.TestConnector(t, redialtest.Harness{
		Pkg:   "amqp",
		Start: func(t testing.TB) redialtest.Server { return startRabbit(t, b) },
		New: func(t testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
			s := o.Server.(*rabbitServer)
			c, err := amqp.New(s.url(addr, o), amqp.Options{
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
		Streams: []redialtest.Stream{{Name: "Deliveries", Range: func(ctx context.Context, c redialtest.Client) iter.Seq2[any, error] {
			cc := c.(caseClient)
			return redialtest.Seq2(cc.Deliveries(ctx, cc.queue))
		}}},
		Bad: []redialtest.Bad{
			badAMQP("", "amqp: url: empty (want amqp://user:password@host:5672/vhost)", "", amqp.Options{}),
			badAMQP("Heartbeat", "amqp: Heartbeat -1s: negative", "amqp://h/", amqp.Options{Heartbeat: -time.Second}),
			badAMQP("Prefetch", "amqp: Prefetch -1: negative", "amqp://h/", amqp.Options{Prefetch: -1}),
			badAMQP("Replicas[0]", "", "amqp://h/", amqp.Options{Replicas: []string{"http://h/"}}),
		},
		Refusal:   "PRECONDITION_FAILED",
		Hook:      "BeforeConnect",
		OnConnect: true,
		Secrets:   true,
		Silent:    supervisor.ErrSilent,
		Liveness:  1500 * time.Millisecond, // 1.5 Heartbeats
	})
}

// caseClient is a case's Client and the queue its stream reads.
type caseClient struct {
	*amqp.Client
	queue string
}

func badAMQP(field, want, url string, o amqp.Options) redialtest.Bad {
	return redialtest.Bad{Field: field, Want: want, New: func() error {
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

	mu         sync.Mutex
	secrets    *redialtest.Secrets // the case's, when it has some
	limited    bool
	redeclared bool
}

func startRabbit(t testing.TB, b *rabbittest.Broker) *rabbitServer {
	s := &rabbitServer{t: t, b: b, queue: fmt.Sprintf("conformance-%d", rabbitCases.Add(1))}
	t.Cleanup(func() {
		s.Serve() // the next case finds the broker as it was
		s.admin(func(ch *amqp091.Channel) error { _, err := ch.QueueDelete(s.queue, false, false, false); return err })
	})
	return s
}

// Addr is the broker's address.
func (s *rabbitServer) Addr() string { return s.b.Addr() }

// url is the case's URL toward addr: o.Secrets' password (made alice's)
// and query value, or the initial password.
func (s *rabbitServer) url(addr string, o redialtest.Options) string {
	password := "initial"
	u := url.URL{Scheme: "amqp", Host: addr, Path: "/"}
	if o.Secrets != nil {
		s.mu.Lock()
		s.secrets = o.Secrets
		s.mu.Unlock()
		u = *mustParse(o.Secrets.URL("amqp", addr, "/"))
		password = o.Secrets.Password
	}
	u.User = url.UserPassword(redialtest.User, password)
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
	s.must(s.b.SetPassword(redialtest.User, password))
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
		if err := s.b.SetPassword(redialtest.User, tok); err != nil {
			return errors.New("the token service is down") // the broker is, and the attempt fails anyway
		}
		u.User = url.UserPassword(redialtest.User, tok)
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
	limited, redeclared := s.limited, s.redeclared
	s.limited, s.redeclared = false, false
	s.mu.Unlock()
	if limited {
		s.must(s.b.ClearUserLimits(redialtest.User))
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
		s.must(s.b.SetUserLimits(redialtest.User, `{"max-connections": 0}`))
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

// CloseConns closes every client connection with a reason that repeats
// the case's password and newest BeforeConnect credential.
func (s *rabbitServer) CloseConns() {
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

// Send publishes one message to the case's queue.
func (s *rabbitServer) Send() {
	s.admin(func(ch *amqp091.Channel) error {
		return ch.PublishWithContext(context.Background(), "", s.queue, false, false, amqp091.Publishing{Body: []byte("hello")})
	})
}
