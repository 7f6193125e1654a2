// Package dial is the dialing that adapters/tcp, adapters/tcp/tcptls and
// adapters/tcp/rpc share: their dial options, checked and defaulted the
// same way, the dialer that applies them (keep-alive, TCP_USER_TIMEOUT, a
// Layer such as TLS), and the supervisor of net.Conn that tcp and tcptls
// return. It imports no crypto/tls: a plain-TCP program does not link it.
package dial
