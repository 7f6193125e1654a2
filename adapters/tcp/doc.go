// Package tcp keeps raw TCP (or TLS) connections alive under a supervisor;
// adapters/tcp/rpc adds bidirectional RPC, so that a plain-TCP program
// does not compile rpc2.
//
// A byte stream cannot be watched without taking bytes from the program,
// so the program's reader is the watcher: it reports a failed read with
// Invalidate, and the supervisor dials again at once (see the examples).
// Attempts that are refused are retried with backoff. What finds a peer
// that vanished:
//   - idle: TCP keep-alive (probes after 5s, every 3s, 3 of them: 14s);
//   - with data outstanding, when keep-alive does not probe:
//     TCP_USER_TIMEOUT (15s, Linux only) fails the blocked Write;
//   - a proxy that stays up but stops forwarding: neither; only the
//     program can tell (read deadlines, or a ping as adapters/tcp/rpc has).
//
// An attempt is the TCP handshake, which a proxy completes by itself, then
// the TLS handshake, then Options.Handshake, if any: only that makes the
// server's answer part of the attempt.
package tcp
