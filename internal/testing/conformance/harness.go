package conformance

import (
	"context"
	"iter"
	"maps"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Client is what an adapter's constructor returns: a
// *supervisor.Supervisor[C], or a type that embeds one or offers the same
// methods (sse.Client, postgres.Listener and Pool).
type Client interface {
	Run(ctx context.Context) error
	Status() health.Status
	Subscribe() (<-chan health.Status, func())
	Done() <-chan struct{}
	Err() error
	Name() string
	History() []health.Transition
}

// Server is a real server on 127.0.0.1 that a harness started for one
// case; it lives until the case ends. It starts serving. Each method
// changes what it does from then on and returns once the change holds.
// Every text it sends (a refusal's status line and body, a close reason)
// echoes what the client sent it, credentials included, as a careless
// server would.
type Server interface {
	// Serve accepts and serves new attempts; after Kill it listens again
	// on the same address, after Stall live connections answer again.
	Serve()
	// Refuse answers every new attempt with a refusal that the adapter
	// retries, or with one it gives up on (permanent), even with a
	// BeforeConnect. Live connections stay, unless the server cannot
	// refuse for good without ending them (postgres).
	Refuse(permanent bool)
	// Close ends every live connection the server's way (a close frame
	// whose reason echoes, a terminated backend) and goes on serving.
	Close()
	// Kill ends every live connection abruptly and stops listening, as a
	// killed process: attempts are refused until Serve.
	Kill()
	// Stall makes live connections stop answering (no pong, no data, no
	// reply) without closing them, until Serve.
	Stall()
}

// Echoer is a Server that reports the texts it sent, so that the secret
// cases can check that the server did repeat the secrets (a case that
// cannot fail proves nothing).
type Echoer interface {
	Echoed() []string
}

// Sender is a Server whose clients get data only when asked: Send makes
// it send one item to every live connection (a NOTIFY). Servers that
// greet every new connection need not be Senders.
type Sender interface {
	Send()
}

// Counter is a Server that can tell how many of the case's connections
// it holds open (a database's sessions, which are processes, not
// goroutines): the no-leak case checks that none is left.
type Counter interface {
	Open() int
}

// Options is what a case asks of a client; the harness turns them into
// its adapter's options.
type Options struct {
	// Settings go to the adapter's Supervisor options as they are. A case
	// always sets Backoff, ConnectTimeout and a Logger (a stock slog
	// handler); Name is "" so that the adapter's default shows.
	Settings supervisor.Settings
	// OnConnect, when set, is the program's OnConnect (the harness calls
	// it from the adapter's).
	OnConnect func(ctx context.Context) error
	// BeforeConnect, when set, is called by the adapter's per-attempt
	// hook (BeforeConnect, tcp's Handshake); the credential it returns is
	// put where the transport carries a rotating one (TokenHeader, the
	// password).
	BeforeConnect func(ctx context.Context) (string, error)
	// Secrets, when set, are put in the target where the transport takes
	// them: userinfo, the query, a header.
	Secrets *Secrets
}

// Stream is one of an adapter's iterators as a program ranges over it:
// it yields an item (a message, an event, a connection) or the error of a
// break, and ends when the client stops or fails.
type Stream struct {
	Name  string
	Range func(ctx context.Context, c Client) iter.Seq2[any, error]
	// Greets says the stream yields an item on every new connection
	// without being asked (a server greeting, the connection itself).
	Greets bool
	// StopFirst says the program must end its loop before Run's ctx (a
	// *pgx.Conn must not be in use while the supervisor closes it); other
	// streams end by themselves after Run returned.
	StopFirst bool
}

// Bad is one construction with a bad option.
type Bad struct {
	Field string // the field the error names, after the package prefix; "": Want's
	Want  string // the whole error text, when the harness pins it
	New   func() error
}

// Harness is one adapter's side of the suite.
type Harness struct {
	// Pkg is the adapter's package name, the prefix of its errors.
	Pkg string
	// Start starts a server for one case.
	Start func(t testing.TB) Server
	// New builds, without starting it, a client of srv with o.
	New func(t testing.TB, srv Server, o Options) (Client, error)
	// Streams are the adapter's iterators; the first is the one a case
	// reads when it reads one. None: the adapter has no stream.
	Streams []Stream
	// Bad are constructions with one bad option each, besides the bad
	// supervisor settings every case of BadOptions tries.
	Bad []Bad
	// Refusal is what Run's error says of the server's refusal for good.
	Refusal string
	// Hook names the program's per-attempt hook that Options.BeforeConnect
	// becomes, as a panic in it is named: "" means "BeforeConnect".
	Hook string
	// Silent, when set, is the sentinel the adapter's liveness failure
	// wraps: supervisor.ErrSilent (postgres's, once it wraps it too).
	Silent error
	// Liveness is how long the adapter takes at most, with the options
	// its New sets, to find a stalled connection.
	Liveness time.Duration
	// Skip says, for each case that does not apply, why.
	Skip map[string]string
	// Known says, for each case that fails today, the defect it shows.
	// Such a case runs apart (in a child process when it would crash or
	// wedge the test binary) and is skipped with that reason; the test
	// fails once it passes, so that the entry is removed.
	Known map[string]string
	// NoChild, when set, says why the harness cannot run a case in a
	// child process (its TestMain starts a database, say): a known
	// failure that would crash the binary is then not run at all.
	NoChild string
}

// SupervisorDefects are the known failures every adapter shares today:
// issue 19's defects 5, 6 and 7 live in the supervisor (branch s-core
// fixes them). A harness's Known starts from them (see Known); a case its
// Skip table names is not run at all.
var SupervisorDefects = map[string]string{}

// Known returns the known failures of SupervisorDefects and own, own
// winning for a case both name.
func Known(own map[string]string) map[string]string {
	out := maps.Clone(SupervisorDefects)
	maps.Copy(out, own)
	return out
}
