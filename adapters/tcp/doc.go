// Package tcp keeps plain TCP connections alive under a supervisor
// (adapters/tcp/tcptls adds TLS, adapters/tcp/rpc RPC). The program's
// reader is the watcher: it reports a failed read with Invalidate. A
// vanished peer is found by keep-alive when idle (14s), by TCP_USER_TIMEOUT
// (15s, Linux) with data outstanding, and behind a proxy that stops
// forwarding only by the program (read deadlines, rpc's ping); a proxy
// accepts by itself, so Options.Handshake makes the server's answer part
// of the attempt.
package tcp
