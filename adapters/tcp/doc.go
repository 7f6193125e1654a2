// Package tcp keeps raw TCP (or TLS) connections alive under a supervisor;
// adapters/tcp/rpc adds RPC, so that a plain-TCP program does not compile
// rpc2.
//
// A byte stream cannot be watched without taking bytes from the program,
// so the program's reader is the watcher: it reports a failed read with
// Invalidate. A vanished peer is found by TCP keep-alive when idle (14s),
// by TCP_USER_TIMEOUT (15s, Linux only) with data outstanding, and, behind
// a proxy that stays up but stops forwarding, only by the program (read
// deadlines, or rpc's ping). A proxy completes the TCP handshake by
// itself: Options.Handshake makes the server's answer part of the attempt.
package tcp
