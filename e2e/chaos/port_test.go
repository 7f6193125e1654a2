package chaos

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
)

// Everything that is restarted or disabled during a run (the servers, the
// proxies, PostgreSQL) listens on a port below the kernel's ephemeral
// range (32768 and up on Linux). An outgoing connection may take any port
// in that range while its listener is down, and listening again would
// then fail with "address already in use".
const lowPorts, lowPortsEnd = 20000, 32000

// given holds the low ports handed out, so that none is handed out twice
// while its owner is down.
var given struct {
	sync.Mutex
	ports map[int]bool
}

// listenLow listens on 127.0.0.1 on a free low port that was never handed
// out before in this process.
func listenLow(t testing.TB) net.Listener {
	t.Helper()
	given.Lock()
	defer given.Unlock()
	if given.ports == nil {
		given.ports = map[int]bool{}
	}
	for range 100 {
		port := lowPorts + rand.IntN(lowPortsEnd-lowPorts)
		if given.ports[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			given.ports[port] = true
			return ln
		}
	}
	t.Fatalf("no free port in %d-%d", lowPorts, lowPortsEnd)
	return nil
}

// lowPort returns a free low port for a listener that someone else opens
// (a proxy, PostgreSQL). Nothing else takes low ports on its own, so it
// stays free until then.
func lowPort(t testing.TB) int {
	t.Helper()
	ln := listenLow(t)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// lowAddr is 127.0.0.1:lowPort.
func lowAddr(t testing.TB) string { return fmt.Sprintf("127.0.0.1:%d", lowPort(t)) }
