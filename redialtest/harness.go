package redialtest

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Client is what a Harness's New returns: a *supervisor.Supervisor[C], or
// a type that embeds one (an adapter's client).
type Client interface {
	Run(ctx context.Context) error
	Status() health.Status
	Subscribe() (<-chan health.Status, func())
	Done() <-chan struct{}
	Err() error
	Name() string
	History() []health.Transition
}

// Server is the program's real server for one case. TestConnector puts a
// Proxy in front of it and drives the faults that need no protocol
// knowledge (kill, refuse, stall, blackhole) there. A Server may offer
// more through Refuser, ConnCloser, Echoer, Sender and Counter.
type Server interface {
	Addr() string
}

// Refuser is a Server that refuses new attempts its protocol's way, with
// a refusal the client retries or one it gives up on (permanent), until
// Serve. Live connections may stay.
type Refuser interface {
	Refuse(permanent bool)
	Serve()
}

// ConnCloser is a Server that ends every live connection its protocol's
// way (a close frame, a terminated session) and goes on serving.
type ConnCloser interface {
	CloseConns()
}

// Echoer is a Server that echoes what the client sent (credentials
// included) in every text it sends, and reports those texts: a secrets
// case checks that the server did repeat the secrets.
type Echoer interface {
	Echoed() []string
}

// Sender is a Server whose clients get data only when asked: Send sends
// one item to every live connection.
type Sender interface {
	Send()
}

// Counter is a Server that counts the sessions it holds for the case
// (processes the Proxy cannot see): no-leak checks that none is left.
type Counter interface {
	Open() int
}

// Options is what a case asks of a client; New turns them into the
// program's.
type Options struct {
	// Server is the case's server, for a New that needs more of it than
	// the address it dials.
	Server Server
	// Settings go to the supervisor as they are: a case sets Backoff,
	// ConnectTimeout and a Logger, and bad values in bad-options.
	Settings supervisor.Settings
	// OnConnect, when set, is called by the program's OnConnect
	// (Harness.OnConnect).
	OnConnect func(ctx context.Context) error
	// BeforeConnect, when set, is called by the program's per-attempt
	// hook (Harness.Hook); the credential it returns goes where the
	// transport carries a rotating one.
	BeforeConnect func(ctx context.Context) (string, error)
	// Secrets, when set, go where the transport takes credentials
	// (Harness.Secrets).
	Secrets *Secrets
}

// Stream is one of the client's iterators as a program ranges over it: it
// yields an item or the error of a break, and ends when the client stops
// or fails.
type Stream struct {
	Name  string
	Range func(ctx context.Context, c Client) iter.Seq2[any, error]
	// Greets: the stream yields an item on every new connection unasked.
	Greets bool
	// StopFirst: the program ends its loop before Run's ctx ends.
	StopFirst bool
}

// Bad is one construction with a bad option.
type Bad struct {
	Field string // the field the error names after the prefix; "": Want's
	Want  string // the whole error text, when pinned
	New   func() error
}

// Harness is the program's side of TestConnector. New and Liveness, with
// Target or Start, are all it needs; the other fields let more cases run.
type Harness struct {
	// Target is the address of the program's real server, shared by every
	// case; Start, when set, starts one for each case instead.
	Target string
	Start  func(t testing.TB) Server
	// New builds, without starting it, the program's client toward addr
	// (a Proxy's) with o: o.Settings given to the supervisor as they are.
	New func(t testing.TB, addr string, o Options) (Client, error)
	// Liveness is how long the client takes at most to find a connection
	// whose server stopped answering.
	Liveness time.Duration
	// Silent, when set, is the sentinel the liveness failure wraps.
	Silent error
	// Pkg is the prefix of New's errors, with Options.Settings under its
	// Supervisor field; "" means New calls supervisor.New.
	Pkg string
	// Streams are the client's iterators; the first is the one a case
	// reads when it reads one.
	Streams []Stream
	// Bad are constructions with one bad option each.
	Bad []Bad
	// Refusal is what Run's error says of a Refuser's refusal for good.
	Refusal string
	// Hook names the per-attempt hook that calls Options.BeforeConnect;
	// "": there is none.
	Hook string
	// OnConnect says New has the program's OnConnect call
	// Options.OnConnect.
	OnConnect bool
	// Secrets says New puts Options.Secrets and BeforeConnect's
	// credential where the transport carries them, as secrets.
	Secrets bool
	// Skip says, for each case that does not apply, why.
	Skip map[string]string
	// Known says, for each case that fails today, the defect it shows:
	// it runs apart (in a child process when it would crash the binary)
	// and is skipped with that reason; the test fails once it passes.
	Known map[string]string
	// NoChild, when set, says why a case cannot run in a child process:
	// a known failure that would crash the binary is then not run.
	NoChild string
}
