// Package tcp keeps raw TCP (or TLS) connections alive under a supervisor.
// Bidirectional RPC over TCP (github.com/cenkalti/rpc2) is package
// adapters/tcp/rpc, so that a plain-TCP program does not compile rpc2.
//
// # The program's reader is the watcher
//
// New returns a supervisor.Supervisor[net.Conn]. A byte stream cannot be
// watched without taking bytes from the program, so the supervisor does
// not watch it: the program's reader is the one that sees the connection
// fail (io.EOF, a reset, a timeout), and it says so with Invalidate, which
// closes the connection and dials again at once:
//
//	for conn := range s.Connections(ctx) { // waits while there is no connection
//		sc := bufio.NewScanner(conn)
//		for sc.Scan() {
//			handle(sc.Text())
//		}
//		// A Scanner ends with a nil Err at io.EOF: record that, or
//		// Status.Err says only "connection invalidated".
//		s.Invalidate(conn, cmp.Or(sc.Err(), io.EOF))
//	}
//	return s.Err() // nil: ctx ended or Run stopped; else why it gave up
//
// The loop ends when ctx ends or the supervisor stops or gives up; it never
// spins on a dead connection. For one request at a time, Do waits for a
// connection, runs f on it, and invalidates it when f fails:
//
//	err := s.Do(ctx, func(ctx context.Context, conn net.Conn) error {
//		_, err := conn.Write(request)
//		return err
//	})
//
// A program that never reads never learns that the server went away.
//
// # What each failure looks like, and what finds it
//
//   - The server restarts or refuses: Read returns io.EOF or a reset; the
//     program calls Invalidate. Attempts get "connection refused" and are
//     retried with backoff.
//   - The peer vanished while the connection was idle: TCP keep-alive
//     (KeepAlive, default probes after 5s idle, every 3s, 3 of them) makes
//     the kernel fail the next Read.
//   - The peer vanished, or stopped reading, while data was outstanding:
//     keep-alive does not probe then; TCP_USER_TIMEOUT (UserTimeout,
//     default 15s, Linux only) makes the blocked Write fail with
//     ETIMEDOUT.
//   - A live proxy or load balancer in between that stops forwarding (the
//     toxiproxy "timeout" toxic): TCP stays healthy — the proxy
//     acknowledges and drops the data — so neither of the above fires. Only
//     the program can tell, with read deadlines or an application-level
//     heartbeat (adapters/tcp/rpc has one). With the defaults, then, a
//     dead peer is found within 15s (keep-alive's 14s when idle,
//     TCP_USER_TIMEOUT's 15s when writing); a live proxy that stops
//     forwarding is the program's to find.
//   - A DNS name that does not resolve: retried (DNS comes back); Status.Err
//     says `host "x" not found in DNS`. See Classify for what gives up.
//
// # What "connected" means
//
// A connection counts as made when the attempt (bounded by
// supervisor.Options.ConnectTimeout) completed. With plain TCP that is
// only the TCP handshake, which a proxy completes by itself whatever the
// server behind it does. With TLS the handshake is part of the attempt; an
// Options.Handshake (a greeting, a first ping) makes the server's answer
// part of it too, so a server that answers too slowly fails the attempt at
// ConnectTimeout.
package tcp
