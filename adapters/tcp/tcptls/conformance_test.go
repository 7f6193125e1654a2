package tcptls_test

import (
	"net"
	"testing"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/tcptls"
	"github.com/redial-go/redial/internal/testing/tcptest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// The harness is tcp's over TLS: a certificate the client does not trust
// is the refusal for good.
func TestConformance(t *testing.T) {
	serverTLS, clientTLS := testkit.SelfSigned(t)
	newTLS := func(address string, o tcp.Options) (*supervisor.Supervisor[net.Conn], error) {
		return tcptls.New(address, tcptls.Options{TLS: clientTLS, Options: o})
	}
	tcptest.Conformance(t, "tcptls", newTLS, tcptest.TLS(t, serverTLS))
}
