// Package websocket keeps a github.com/coder/websocket connection alive
// under a redial supervisor.
//
// New returns a *supervisor.Supervisor[*websocket.Conn]: it dials
// Options.URL, runs Options.Supervisor.OnConnect (the place to re-send
// subscriptions: it runs after every reconnect, before the state is
// Connected), watches the connection with a ping heartbeat, and reconnects
// with backoff when it breaks.
//
// # Reading, and the heartbeat
//
// coder/websocket answers control frames (pongs, close frames) only while
// someone reads the connection. The heartbeat (Connector.Watch) runs on the
// supervisor's own goroutine and sends a ping every PingInterval; the pong
// is seen by the program's reader. So:
//
//   - a program that receives messages calls Read in a loop from one
//     goroutine: Read waits for the live connection, reads, and on failure
//     tells the supervisor (Invalidate) so that it reconnects at once and
//     the close status reaches Classify;
//   - a program that only sends sets Options.WriteOnly: the adapter then
//     reads on one goroutine per connection, which ends before Close returns;
//   - if nothing reads, the pongs are never seen: the heartbeat fails after
//     PingInterval + PingTimeout and the connection is replaced, with an
//     ErrHeartbeat in Status that says nothing reads it.
//
// A silent peer (a dead NAT entry, a frozen server) is found within
// PingInterval + PingTimeout and the connection closed at once.
//
// # Limits and shutdown
//
// A message larger than ReadLimit (1 MiB by default) fails the read with
// websocket.ErrMessageTooBig; the connection is dropped and the supervisor
// reconnects, so memory stays bounded whatever the server sends. When the
// supervisor stops it closes a healthy connection with 1000 (normal
// closure), waiting at most CloseTimeout for the server's answer; a
// connection known to be broken is dropped at once. A Read whose ctx ends
// mid-read drops the connection (coder/websocket's rule): to leave
// politely, end Run's ctx first and the readers' after Run returned.
//
// # Errors
//
// Classify turns the transport's errors into the supervisor's classes:
// handshake 401, 403 and 404 and close 1008 (policy violation) are
// permanent, so the supervisor gives up (Failed); handshake 429 and 503 with
// Retry-After (seconds or an HTTP date), and close 1012 (service restart) and
// 1013 (try again later), lengthen the next wait; everything else,
// including close 1000, 1001 and 1006, is an ordinary reconnect. A server
// may say how long in a 1012 or 1013 close reason with "retry-after=N"
// (seconds); otherwise the wait is at least Options.CloseHint. A connection
// the server closes with 1008 ends in Failed without another handshake.
// CloseStatus reads the close code from Status().Err or Run's error.
//
// No error, log line or Status holds the URL's user name and password, its
// credential query parameters (token, key, password, secret, signature,
// ...), or the body of a refused handshake.
package websocket
