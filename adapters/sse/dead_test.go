package sse_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// feedEnv makes the test binary a feed server (serveFeed).
const feedEnv = "REDIAL_SSE_TEST_FEED"

// serveFeed serves, on a free port it prints, every request the events
// after its Last-Event-ID, 1 KiB each, as fast as the client takes them,
// until the process is killed.
func serveFeed() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	data := strings.Repeat("x", 1024)
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from + 1; ; i++ {
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", i, data); err != nil {
				return
			}
		}
	}))
}

// TestDeadServerIsFoundWhileTheProgramIsSlow: a program that handles 20
// events a second, far behind a server that sends as fast as it may, and
// the server SIGKILLed with megabytes in flight: the Client says Backoff
// within IdleTimeout, not once the program has worked through what the
// kernel held. Before the kill, Status says how far behind the program is.
func TestDeadServerIsFoundWhileTheProgramIsSlow(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), feedEnv+"=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)

	o := testOptions()
	o.IdleTimeout = 1500 * time.Millisecond
	cl, behind := make(chan *client, 1), make(chan health.Lag, 1)
	var c0 *client
	c := start(t, "http://"+strings.TrimSpace(addr)+"/events", o, func(got) {
		time.Sleep(50 * time.Millisecond) // the program's work, on purpose
		if c0 == nil {
			c0 = <-cl
		}
		if lag := c0.Lag(); c0.Status().State == health.Connected && lag.Oldest >= 2*time.Second {
			select {
			case behind <- lag:
			default:
			}
		}
	})
	cl <- c
	var lag health.Lag
	select {
	case lag = <-behind:
	case <-time.After(10 * time.Second):
		t.Fatalf("the program never fell 2s behind: %+v", c.Lag())
	}
	require.NoError(t, cmd.Process.Kill())
	killed := time.Now()
	st := testkit.WaitStatus(t, c, 10*time.Second, "the loss", testkit.InState(health.Backoff))
	took := time.Since(killed)
	t.Logf("lag at the kill %+v; Backoff %v after it: %v", lag, took.Round(time.Millisecond), st.Err)
	assert.LessOrEqual(t, took, o.IdleTimeout, "a dead server is found within IdleTimeout")
	require.Error(t, st.Err)
	assert.Regexp(t, `connection refused|connection reset|EOF`, st.Err.Error(), "the server's death, not silence")
	require.NoError(t, c.stop())
}
