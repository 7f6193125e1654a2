package chaos

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// echoTimeout bounds one echo of the TCP worker: the program's read
// deadline, which is how it finds a silent peer (the adapter cannot).
const echoTimeout = 2 * time.Second

// tcpSubject is a plain TCP supervisor (adapters/tcp.New) with a
// Handshake that says hello, and a worker that sends numbered echo
// requests and checks each answer. Its reader is the watcher, as the
// adapter asks: a failed echo (in Do) invalidates the connection.
type tcpSubject struct {
	subjectBase
	sup *supervisor.Supervisor[net.Conn]
	v   *violations

	turn chan struct{} // one echo at a time on the connection (a lock that ctx can end)
	conn net.Conn      // the connection rd reads; owned by whoever holds turn
	rd   *bufio.Reader
	n    int64
}

func newTCPSubject(t testing.TB, i int, srv *acceptor, cfg config, v *violations) *tcpSubject {
	name := fmt.Sprintf("tcp-%02d", i)
	proxy := toxitest.NewOn(t, lowAddr(t), srv.addr)
	s := &tcpSubject{subjectBase: newBase(name, "tcp", proxy), v: v, turn: make(chan struct{}, 1)}
	sup, err := tcp.New(proxy.Addr(), tcp.Options{
		Handshake: func(ctx context.Context, c net.Conn) error { return hello(c, name) },
		Supervisor: supervisor.Settings{
			Name:           name,
			Backoff:        cfg.backoff(3000 + i),
			StableAfter:    stableAfter,
			ConnectTimeout: connectTimeout,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.sup = sup
	return s
}

// hello identifies the client to the server and waits for its "ok". The
// adapter bounds it with the attempt's deadline.
func hello(c net.Conn, name string) error {
	if _, err := fmt.Fprintf(c, "hello %s\n", name); err != nil {
		return err
	}
	var ok [3]byte // exactly "ok\n": nothing else may be read here
	if _, err := io.ReadFull(c, ok[:]); err != nil {
		return err
	}
	if string(ok[:]) != "ok\n" {
		return fmt.Errorf("hello answered %q", ok[:])
	}
	return nil
}

func (s *tcpSubject) run(ctx context.Context) error { return s.sup.Run(ctx) }

func (s *tcpSubject) Status() health.Status { return s.sup.Status() }

func (s *tcpSubject) Subscribe() (<-chan health.Status, func()) { return s.sup.Subscribe() }

func (s *tcpSubject) consume(context.Context, *sync.WaitGroup) {}

// work echoes every poolInterval.
func (s *tcpSubject) work(ctx context.Context, wg *sync.WaitGroup) {
	every(ctx, wg, echoTimeout, func(ctx context.Context) { _ = s.echo(ctx) })
}

// echo sends the next number on the live connection and checks the
// answer, all before ctx's deadline, through Do: a failure invalidates
// the connection (the program's reader is the watcher). The turn is taken
// before Do, so that a wait for it that ctx ends is no failure of the
// connection.
func (s *tcpSubject) echo(ctx context.Context) error {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()
	return s.sup.Do(ctx, s.echoOn)
}

// echoOn makes one echo on conn; the caller holds the turn.
func (s *tcpSubject) echoOn(ctx context.Context, conn net.Conn) error {
	if conn != s.conn {
		s.conn, s.rd = conn, bufio.NewReader(conn)
	}
	s.n++
	want := fmt.Sprintf("e %d\n", s.n)
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) }) // a cancel ends the wait too
	defer stop()
	if _, err := conn.Write([]byte(want)); err != nil {
		return err
	}
	got, err := s.rd.ReadString('\n')
	if err != nil {
		return err
	}
	if got != want {
		s.v.add(ruleSequence, s.name, "echo of %q answered %q", want, got)
		return fmt.Errorf("echo of %q answered %q", want, got)
	}
	s.messages.Add(1)
	return nil
}

func (s *tcpSubject) roundTrip(ctx context.Context) error { return s.echo(ctx) }

// fence: every echo is checked as it comes.
func (s *tcpSubject) fence(context.Context) error { return nil }
