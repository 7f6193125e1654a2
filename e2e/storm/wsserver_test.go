package storm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/redial-go/redial/admit"
)

// The WebSocket storm's server runs in a process of its own (this test
// binary, started again with wsServerEnv set), so that the clients'
// process holds only the clients' sockets and the server's handshakes do
// not compete with the clients' goroutines inside one runtime. It goes
// away as a server does when it crashes or is restarted: its process
// exits, and the kernel closes every connection at once; a new process
// listens on the same address when the outage is over.
const wsServerEnv = "REDIAL_STORM_WS_SERVER"

// wsServer is the storm's server: it accepts WebSocket handshakes and holds
// the connections (answering pings). The process that comes back after
// the outage accepts at most limit handshakes in each second counted from
// the moment the first one went away, answering the excess 503 without
// Retry-After, so that the clients' own policies decide when they come
// back, and records every handshake.
type wsServer struct {
	addr string

	mu    sync.Mutex
	ln    net.Listener
	srv   *http.Server
	conns map[*ws.Conn]struct{}
	limit int // accepts per second; 0: no limit
	// admission is how the server that comes back meets its clients:
	// "" (limit a second, the rest 503 without a hint), "planned" (package
	// admit's Handler at limit a second) or "none" (every handshake taken).
	admission string
	planner   *admit.Planner
	t0        time.Time // when the server went away: seconds count from here
	accepted  map[int64]int
	hs        []handshake // since t0
	wg        sync.WaitGroup
}

// handshake is one upgrade request: when (since t0), and whether it was
// accepted.
type handshake struct {
	At time.Duration `json:"at"`
	OK bool          `json:"ok"`
}

// wsServerMain is the server process. Its environment says which one it
// is: wsServerEnv=first listens on a free port; wsServerEnv=back,ADDR,D,K
// is started before the first one goes away, reads "t0 NANOS" (when it
// did, in Unix nanoseconds) from stdin, and listens on ADDR at T0+D,
// accepting K a second. It prints "addr HOST:PORT" once it listens, then
// obeys one command per line on stdin, answering one line each:
//
//	conns       how many connections are open
//	die         exit at once, every connection dropped (answers "t0 NANOS" first)
//	accepts     how many handshakes were accepted
//	stats       the handshakes, as JSON
func wsServerMain() {
	s := &wsServer{conns: map[*ws.Conn]struct{}{}, accepted: map[int64]int{}}
	addr := "127.0.0.1:0"
	sc := bufio.NewScanner(os.Stdin)
	if f := strings.Split(os.Getenv(wsServerEnv), ","); f[0] == "back" && len(f) >= 4 {
		d, _ := time.ParseDuration(f[2])
		s.limit, _ = strconv.Atoi(f[3])
		addr = f[1]
		if len(f) == 5 {
			s.admission = f[4]
		}
		fmt.Println("ready")
		if !sc.Scan() {
			return
		}
		t0, _ := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "t0 "), 10, 64)
		s.t0 = time.Unix(0, t0)
		time.Sleep(time.Until(s.t0.Add(d))) // the measurement: the server is away
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	s.addr = ln.Addr().String()
	if err := s.admit(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	s.serve(ln)
	fmt.Println("addr", s.addr)
	out := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		switch cmd := sc.Text(); cmd {
		case "conns":
			s.mu.Lock()
			n := len(s.conns)
			s.mu.Unlock()
			fmt.Fprintln(out, n)
		case "die":
			_ = ln.Close()
			fmt.Fprintln(out, "t0", time.Now().UnixNano())
			out.Flush()
			os.Exit(0) // the kernel closes every connection
		case "accepts":
			s.mu.Lock()
			n := 0
			for _, h := range s.hs {
				if h.OK {
					n++
				}
			}
			s.mu.Unlock()
			fmt.Fprintln(out, n)
		case "stats":
			s.mu.Lock()
			b, _ := json.Marshal(s.hs)
			s.mu.Unlock()
			fmt.Fprintln(out, string(b))
		default:
			fmt.Fprintln(out, "error unknown command", cmd)
		}
		out.Flush()
	}
	s.stop()
}

func (s *wsServer) serve(ln net.Listener) {
	var h http.Handler = http.HandlerFunc(s.handshake)
	if s.planner != nil {
		h = s.plannedHandler()
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.ln, s.srv = ln, srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// handshake admits or refuses one upgrade.
func (s *wsServer) handshake(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	s.mu.Lock()
	at := now.Sub(s.t0)
	sec := int64(at / time.Second)
	ok := s.limit == 0 || s.admission != "" || s.accepted[sec] < s.limit
	if ok {
		s.accepted[sec]++
	}
	if !s.t0.IsZero() {
		s.hs = append(s.hs, handshake{At: at, OK: ok})
	}
	s.mu.Unlock()
	if !ok {
		w.Header().Set("Connection", "close") // the server closes: its TIME_WAIT, not the client's
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	c, err := ws.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	s.wg.Go(func() {
		// Reading answers the clients' pings; it ends when either side
		// closes.
		_, _, _ = c.Reader(context.Background())
		c.CloseNow()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	})
}

// drop closes every WebSocket connection.
func (s *wsServer) drop() {
	s.mu.Lock()
	conns := make([]*ws.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
}

func (s *wsServer) stop() {
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	_ = srv.Close()
	s.drop()
	s.wg.Wait()
}

// wsServerProc is the parent's handle on a server process.
type wsServerProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	addr string
	once sync.Once
}

// startWSServer starts the first server process and waits until it
// listens.
func startWSServer(tb testing.TB) *wsServerProc {
	p := execWSServer(tb, "first")
	p.listening(tb)
	return p
}

// prepareWSServer starts the server process that comes back on addr after
// down, accepting rate handshakes a second, and waits until it is ready:
// call back with the time the first one went away.
func prepareWSServer(tb testing.TB, addr string, down time.Duration, rate int) *wsServerProc {
	return prepareWSServerAs(tb, addr, down, rate, "")
}

// prepareWSServerAs is prepareWSServer with an admission (see wsServer).
func prepareWSServerAs(tb testing.TB, addr string, down time.Duration, rate int, admission string) *wsServerProc {
	p := execWSServer(tb, fmt.Sprintf("back,%s,%v,%d,%s", addr, down, rate, admission))
	if l := p.line(tb); l != "ready" {
		p.close()
		tb.Fatalf("storm server: %s", l)
	}
	return p
}

// back tells the prepared server when the first one went away, and waits
// until it listens again.
func (p *wsServerProc) back(tb testing.TB, t0 time.Time) {
	if _, err := fmt.Fprintln(p.in, "t0", t0.UnixNano()); err != nil {
		tb.Fatalf("storm server: %v", err)
	}
	p.listening(tb)
}

func execWSServer(tb testing.TB, env string) *wsServerProc {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), wsServerEnv+"="+env)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &wsServerProc{cmd: cmd, in: in, out: bufio.NewReaderSize(outPipe, 1<<20)}
	tb.Cleanup(p.close) // a benchmark that fails leaves no process behind
	return p
}

// listening waits for the process's "addr" line.
func (p *wsServerProc) listening(tb testing.TB) {
	line := p.line(tb)
	addr, ok := strings.CutPrefix(line, "addr ")
	if !ok {
		p.close()
		tb.Fatalf("storm server: %s", line)
	}
	p.addr = addr
}

// close ends the process (if it still runs) and waits for it; calling it
// again does nothing.
func (p *wsServerProc) close() {
	p.once.Do(func() {
		p.in.Close() // its command loop ends, and so does it
		_ = p.cmd.Wait()
	})
}

// die makes the server go away at once and returns when it did.
func (p *wsServerProc) die(tb testing.TB) time.Time {
	l := p.do(tb, "die")
	ns, err := strconv.ParseInt(strings.TrimPrefix(l, "t0 "), 10, 64)
	if err != nil {
		tb.Fatalf("storm server: die: %s", l)
	}
	p.close()
	return time.Unix(0, ns)
}

func (p *wsServerProc) line(tb testing.TB) string {
	l, err := p.out.ReadString('\n')
	if err != nil {
		tb.Fatalf("storm server: %v", err)
	}
	return strings.TrimSuffix(l, "\n")
}

// do sends one command and returns the answer.
func (p *wsServerProc) do(tb testing.TB, cmd string) string {
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		tb.Fatalf("storm server: %v", err)
	}
	l := p.line(tb)
	if strings.HasPrefix(l, "error") {
		tb.Fatalf("storm server: %s: %s", cmd, l)
	}
	return l
}

func (p *wsServerProc) url() string { return "ws://" + p.addr + "/feed" }

func (p *wsServerProc) number(tb testing.TB, cmd string) int {
	n, err := strconv.Atoi(p.do(tb, cmd))
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func (p *wsServerProc) stats(tb testing.TB) []handshake {
	var hs []handshake
	if err := json.Unmarshal([]byte(p.do(tb, "stats")), &hs); err != nil {
		tb.Fatal(err)
	}
	return hs
}
