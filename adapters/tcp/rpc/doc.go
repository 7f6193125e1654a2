// Package rpc keeps bidirectional RPC sessions (github.com/cenkalti/rpc2)
// over TCP or TLS alive under a supervisor. It dials as packages
// adapters/tcp and adapters/tcp/tcptls do and sorts errors as
// tcptls.Classify does.
//
// New returns a Client: a new rpc2 client per connection, with
// Options.Handlers (the methods the server calls on the client) registered
// before it reads. rpc2 has no deadlines of its own, so a connection ends
// when DisconnectNotify fires or a ping (Options.PingMethod, served by
// HandlePing) gets no reply: a silent server is found within PingInterval
// + PingTimeout, 15s by default. Every attempt pings once, so a server
// that does not answer fails it at ConnectTimeout.
//
// Client.Call waits for a connection, makes the call bounded by its ctx,
// and invalidates the connection on a connection error, not on the
// server's error answer. Calls whose ctx ended are counted; past
// Options.MaxAbandoned the connection is recycled, which releases them.
// Every goroutine of a connection has ended when the supervisor closes it.
// Options.OnConnect calls with CallClient: Call would wait for it.
package rpc
