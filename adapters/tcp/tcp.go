package tcp

import (
	"net"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/supervisor"
)

// New returns a supervisor of TCP connections to address (host:port,
// resolved on every attempt), ready to Run; it copies o. Defaults: keep-alive
// after 5s idle, TCP_USER_TIMEOUT 15s on Linux, supervisor.New's.
func New(address string, o Options) (*supervisor.Supervisor[net.Conn], error) {
	return dial.NewLink(dial.Link{
		Pkg: "tcp", Address: address, Replicas: o.Replicas, Options: o.dialOptions(),
		Handshake: o.Handshake, Classify: Classify, OnConnect: o.OnConnect, Supervisor: o.Supervisor,
	})
}
