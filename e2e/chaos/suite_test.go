package chaos

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// suite is everything one run builds: the servers, the PostgreSQL
// cluster, the subjects, and the checks' shared state.
type suite struct {
	cfg       config
	v         *violations
	live      *liveCounter
	cluster   *pgtest.Cluster
	helper    *pgxpool.Pool
	servers   []serverGroup
	subjects  []subject
	ws        []*wsSubject
	listeners []*listenerSubject
	pg        []subject // the Listeners and Pools
}

// build starts the servers and the cluster and makes every subject; none
// runs yet. Everything is closed when t ends.
func build(t *testing.T, cfg config) *suite {
	v := newViolations(t)
	s := &suite{cfg: cfg, v: v, live: newLiveCounter(v)}
	s.cluster = startCluster(t)
	f, slowest := calibrate(t, s.cluster)
	announce(t, fmt.Sprintf("chaos: timings x%.2f (slowest of %d concurrent logins %v, quiet %v): ping timeout %v, recovery margin %v",
		f, calibrateLogins, slowest.Round(time.Millisecond), quietLogins, pingTimeout, recoverMargin))
	s.helper = helperPool(t, s.cluster)
	var wsServers []*wsServer
	for k := range cfg.mix.wsServers {
		srv := startWSServer(t, fmt.Sprintf("wsserver-%d", k), s.live)
		wsServers = append(wsServers, srv)
		s.servers = append(s.servers, serverGroup{name: srv.name, srv: srv})
	}
	for i := range cfg.mix.ws {
		k := i % len(wsServers)
		w := newWSSubject(t, i, wsServers[k], cfg, v)
		s.ws = append(s.ws, w)
		s.servers[k].subjects = append(s.servers[k].subjects, w)
		s.subjects = append(s.subjects, w)
	}
	s.addAcceptors(t, "tcpserver", cfg.mix.tcpServers, startLineServer, cfg.mix.tcp, func(i int, srv *acceptor) subject {
		return newTCPSubject(t, i, srv, cfg, v)
	})
	s.addAcceptors(t, "rpcserver", cfg.mix.rpcServers, startRPCServer, cfg.mix.rpc, func(i int, srv *acceptor) subject {
		return newRPCSubject(t, i, srv, cfg, v)
	})
	for i := range cfg.mix.listeners {
		l := newListenerSubject(t, i, s.cluster, s.helper, cfg, v)
		s.listeners = append(s.listeners, l)
		s.pg = append(s.pg, l)
		s.subjects = append(s.subjects, l)
	}
	for i := range cfg.mix.pools {
		p := newPoolSubject(t, i, s.cluster, cfg, v, s.live)
		s.pg = append(s.pg, p)
		s.subjects = append(s.subjects, p)
	}
	return s
}

// addAcceptors starts servers servers with start and n subjects made by
// make, spread over them.
func (s *suite) addAcceptors(t *testing.T, kind string, servers int, start func(testing.TB, string, *liveCounter) *acceptor,
	n int, make func(int, *acceptor) subject) {
	first := len(s.servers)
	var accs []*acceptor
	for k := range servers {
		a := start(t, fmt.Sprintf("%s-%d", kind, k), s.live)
		accs = append(accs, a)
		s.servers = append(s.servers, serverGroup{name: a.name, srv: a})
	}
	for i := range n {
		sub := make(i, accs[i%servers])
		s.servers[first+i%servers].subjects = append(s.servers[first+i%servers].subjects, sub)
		s.subjects = append(s.subjects, sub)
	}
}

// pgNames returns the names of the PostgreSQL subjects.
func (s *suite) pgNames() []string {
	var names []string
	for _, p := range s.pg {
		names = append(names, p.base().name)
	}
	return names
}
