package rabbittest_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/rabbittest"
)

// TestBrokerDiesWithTestBinary runs a copy of this test binary that starts
// a broker and is then killed with SIGKILL, so no Cleanup or defer runs:
// the watchdog must still stop the broker and its epmd and remove its
// directory.
func TestBrokerDiesWithTestBinary(t *testing.T) {
	if os.Getenv("RABBITTEST_ORPHAN_CHILD") == "1" {
		b, err := rabbittest.New(rabbittest.Options{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(b.DirForTest(), b.Addr(), b.EpmdAddrForTest())
		select {} // until killed
	}
	shared.Get(t) // skips or fails as every test does when there is no broker
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokerDiesWithTestBinary$")
	cmd.Env = append(os.Environ(), "RABBITTEST_ORPHAN_CHILD=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var dir, addr, epmd string
	_, err = fmt.Fscan(bufio.NewReader(out), &dir, &addr, &epmd)
	require.NoError(t, err, "child did not start a broker")
	for _, a := range []string{addr, epmd} {
		c, err := net.Dial("tcp", a)
		require.NoError(t, err, "child's broker is not listening on %s", a)
		c.Close()
	}

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	// Nothing notifies this process when a grandchild exits: poll, with a deadline.
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		_, statErr := os.Stat(dir)
		listening := 0
		for _, a := range []string{addr, epmd} {
			if c, err := net.Dial("tcp", a); err == nil {
				c.Close()
				listening++
			}
		}
		if os.IsNotExist(statErr) && listening == 0 {
			return
		}
		if time.Now().After(deadline) {
			assert.Fail(t, "broker outlived its test binary", "dir exists: %v, addresses listening: %d", statErr == nil, listening)
			return
		}
		<-tick.C
	}
}
