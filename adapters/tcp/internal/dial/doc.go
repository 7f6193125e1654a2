// Package dial is the dialing that adapters/tcp and adapters/tcp/rpc
// share: their five dial options, checked and defaulted the same way, and
// the dialer that applies them (keep-alive, TCP_USER_TIMEOUT, TLS).
package dial
