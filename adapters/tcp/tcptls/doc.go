// Package tcptls keeps TLS connections alive under a supervisor as package
// tcp keeps plain ones, with the handshake inside every attempt. It is
// apart so that a plain-TCP program links no crypto/tls.
package tcptls
