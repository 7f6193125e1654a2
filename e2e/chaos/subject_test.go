package chaos

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
)

// subject is one supervisor under test: its adapter, the proxy it dials
// through, its traffic and what the checks need from it.
type subject interface {
	base() *subjectBase
	// run is the supervisor's Run.
	run(ctx context.Context) error
	Status() health.Status
	Subscribe() (<-chan health.Status, func())
	// consume starts the goroutines that read what the connection
	// delivers; they end once Run has returned and ctx has ended.
	consume(ctx context.Context, wg *sync.WaitGroup)
	// work starts the subject's own traffic; it ends when ctx ends.
	work(ctx context.Context, wg *sync.WaitGroup)
	// roundTrip makes one round trip over the current connection.
	roundTrip(ctx context.Context) error
	// fence waits until something sent now has been received, so that
	// every sequence number before it has been checked.
	fence(ctx context.Context) error
}

// subjectBase is what every subject has.
type subjectBase struct {
	name   string // also its identity on the server side
	kind   string // ws, tcp, rpc, listener, pool
	proxy  *toxitest.Proxy
	window faultWindow
	// messages counts what it delivered: feed messages, echoes, calls,
	// notifications, query results.
	messages atomic.Int64

	runErr  error         // what Run returned; read after runDone
	runEnd  time.Time     // when it returned; read after runDone
	runDone chan struct{} // closed when Run returned
}

func newBase(name, kind string, proxy *toxitest.Proxy) subjectBase {
	return subjectBase{name: name, kind: kind, proxy: proxy, runDone: make(chan struct{})}
}

func (b *subjectBase) base() *subjectBase { return b }
