// Package tcp keeps raw TCP (or TLS) connections and bidirectional RPC
// sessions (github.com/cenkalti/rpc2) alive under a supervisor.
//
// # Plain TCP: the program's reader is the watcher
//
// New returns a supervisor.Supervisor[net.Conn]. A byte stream cannot be
// watched without taking bytes from the program, so the connector has no
// Watch: the program's reader is the one that sees the connection fail
// (io.EOF, a reset, a timeout), and it must say so:
//
//	conn, err := s.Conn(ctx) // waits while there is no connection
//	for err == nil {
//		err = readUntilError(conn)
//		// Invalidate (the supervisor closes conn and dials again), then
//		// wait for the next connection.
//		conn, err = tcp.Reconnect(ctx, s, conn, err)
//	}
//	return err // ctx ended, or the supervisor gave up
//
// A program that never reads never learns that the server went away.
//
// # What each failure looks like, and what finds it
//
//   - The server restarts or refuses: Read returns io.EOF or a reset; the
//     program calls Reconnect. Attempts get "connection refused" and are
//     retried with backoff.
//   - The peer vanished while the connection was idle: TCP keep-alive
//     (KeepAlive, default probes after 15s idle, every 5s, 3 of them) makes
//     the kernel fail the next Read.
//   - The peer vanished, or stopped reading, while data was outstanding:
//     keep-alive does not probe then; TCP_USER_TIMEOUT (UserTimeout,
//     default 30s, Linux only) makes the blocked Write fail with
//     ETIMEDOUT.
//   - A live proxy or load balancer in between that stops forwarding (the
//     toxiproxy "timeout" toxic): TCP stays healthy — the proxy
//     acknowledges and drops the data — so neither of the above fires. Only
//     the program can tell, with read deadlines or an application-level
//     heartbeat (the RPC supervisor has one).
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
//
// # RPC over TCP
//
// NewRPC returns an RPC, a supervisor of *rpc2.Client: a new client per
// connection, with RPCOptions.Handlers (the methods the server calls on the
// client) registered on each before it starts reading. Its Watch ends when
// rpc2's DisconnectNotify fires or a heartbeat (RPCOptions.HeartbeatMethod
// every HeartbeatInterval, reply within HeartbeatTimeout; servers register
// it with HandleHeartbeat) goes unanswered, because rpc2 has no deadlines
// of its own. Every attempt makes a first heartbeat, so an attempt ends at
// ConnectTimeout when the server does not answer.
//
// RPC.Call waits for a connection, makes the call bounded by its ctx, and
// invalidates the connection on a connection error. rpc2 keeps a call
// until its reply arrives or the connection closes; calls whose ctx ended
// are counted, and past RPCOptions.MaxAbandoned the connection is recycled,
// which releases them. The read loop and the request writes of a
// connection are goroutines of the connection: all have ended when the
// supervisor closes it, before Run returns.
package tcp
