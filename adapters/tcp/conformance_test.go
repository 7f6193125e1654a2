package tcp_test

import (
	"testing"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/testing/tcptest"
)

// The harness (shared with tcptls): a server that greets and then reads
// what it is sent; one that greets "sorry" is the refusal for good.
func TestConformance(t *testing.T) {
	tcptest.Conformance(t, "tcp", tcp.New, tcptest.Transport{})
}
