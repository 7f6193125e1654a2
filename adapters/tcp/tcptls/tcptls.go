package tcptls

import (
	"crypto/tls"
	"net"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/adapters/tcp/internal/tlsdial"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// Options configures New: tcp's options, embedded, and TLS.
type Options struct {
	TLS         *tls.Config // nil: the zero Config; an empty ServerName is the address's host
	tcp.Options             // with tcp.New's defaults
}

// New returns a supervisor of TLS connections to address as tcp.New's of
// TCP ones, ready to Run: TLS's handshake, then Options.Handshake, are
// inside every attempt. It copies o.
func New(address string, o Options) (*supervisor.Supervisor[net.Conn], error) {
	cfg := o.TLS
	if cfg == nil {
		cfg = &tls.Config{}
	}
	return dial.NewLink(dial.Link{
		Pkg: "tcptls", Address: address, Replicas: o.Replicas, Options: dialOptions(o),
		Layer: tlsdial.Layer(cfg), Handshake: o.Handshake, Classify: Classify, OnConnect: o.OnConnect, Supervisor: o.Supervisor,
	})
}

// dialOptions is tcp.Options's dial part.
func dialOptions(o Options) dial.Options {
	return dial.Options{
		KeepAlive:   o.KeepAlive,
		UserTimeout: o.UserTimeout,
		Resolver:    o.Resolver,
	}
}

// Classify sorts errors as tcp.Classify does; a TLS failure only a
// configuration change fixes (an unknown authority, a wrong name, no TLS
// server) is permanent, an expired certificate retried (it may be renewed).
func Classify(err error) error {
	if tlsdial.Permanent(err) && !backoff.IsPermanent(err) {
		return backoff.Permanent(err)
	}
	return tcp.Classify(err)
}
