// Package rpc keeps bidirectional RPC sessions (github.com/cenkalti/rpc2)
// over TCP or TLS alive under a supervisor. It dials as package
// adapters/tcp does (keep-alive, TCP_USER_TIMEOUT, TLS) and sorts errors
// with tcp.Classify.
//
// New returns a Client, a supervisor of *rpc2.Client: a new client per
// connection, with Options.Handlers (the methods the server calls on the
// client) registered on each before it starts reading. Its watch ends when
// rpc2's DisconnectNotify fires or a heartbeat (Options.HeartbeatMethod
// every HeartbeatInterval, reply within HeartbeatTimeout; servers register
// it with HandleHeartbeat) goes unanswered, because rpc2 has no deadlines
// of its own. A silent server or path is found within HeartbeatInterval +
// HeartbeatTimeout: 15s with the defaults. Every attempt makes a first
// heartbeat, so an attempt ends at ConnectTimeout (10s by default) when
// the server does not answer.
//
// Client.Call waits for a connection, makes the call bounded by its ctx,
// and invalidates the connection on a connection error (a server's error
// answer does not break it). rpc2 keeps a call until its reply arrives or
// the connection closes; calls whose ctx ended are counted, and past
// Options.MaxAbandoned the connection is recycled, which releases them.
// The read loop and the request writes of a connection are goroutines of
// the connection: all have ended when the supervisor closes it, before Run
// returns. Supervisor.OnConnect runs on the new client before it counts as
// connected; it calls with CallClient, since Call would wait for it.
package rpc
