// Package websocket keeps a github.com/coder/websocket connection alive
// under a redial supervisor.
//
// New(url, Options) returns a *supervisor.Supervisor[*websocket.Conn]: it
// dials url, runs Options.Supervisor.OnConnect (the place to re-send
// subscriptions: it runs after every reconnect, before the state is
// Connected), watches the connection with a ping heartbeat, and reconnects
// with backoff when it breaks. Messages reads it:
//
//	feed, err := websocket.New("wss://feed.example/prices", websocket.Options{})
//	...
//	go feed.Run(ctx)
//	for msg, err := range websocket.Messages(readCtx, feed) {
//		if err != nil {
//			continue // the connection broke: messages may have been missed
//		}
//		handle(msg.Data)
//	}
//
// # Reading, and the heartbeat
//
// coder/websocket answers control frames (pongs, close frames) only while
// someone reads the connection. The heartbeat runs on the supervisor's own
// goroutine and sends a ping every PingInterval; the pong is seen by the
// program's reader. So:
//
//   - a program that receives messages ranges over Messages from one
//     goroutine: it waits for the live connection, reads, and on failure
//     tells the supervisor (Invalidate) so that it reconnects at once and
//     the close status reaches Classify; the failure is yielded once as an
//     error, then the next connection's messages follow; the loop ends when
//     the supervisor stops or gives up, or its ctx ends;
//   - a program that only sends sets Options.WriteOnly: the adapter then
//     reads on one goroutine per connection, which ends before Close returns;
//   - if nothing reads, the pongs are never seen: the heartbeat fails after
//     PingInterval + PingTimeout and the connection is replaced, with an
//     ErrHeartbeat in Status that says nothing reads it.
//
// A silent peer (a dead NAT entry, a frozen server) is found within
// PingInterval + PingTimeout — 15s with the defaults — and the connection
// closed at once; an attempt on a stalled path fails at ConnectTimeout
// (10s by default).
//
// # Limits, compression and shutdown
//
// A message larger than ReadLimit (1 MiB by default) fails the read with
// websocket.ErrMessageTooBig; the connection is dropped and the supervisor
// reconnects, so memory stays bounded whatever the server sends.
// Options.CompressionMode offers permessage-deflate (off by default, as in
// coder/websocket). When the supervisor stops it closes a healthy
// connection with 1000 (normal closure), waiting at most CloseTimeout for
// the server's answer; a connection known to be broken is dropped at once.
// A read whose ctx ends mid-read drops the connection (coder/websocket's
// rule): to leave politely, end Run's ctx first and the reader's after Run
// returned.
//
// # Errors
//
// Classify turns the transport's errors into the supervisor's classes:
// handshake 401, 403 and 404 (and a 200 or 204: the url is no WebSocket)
// and close 1008 (policy violation) are permanent, so the supervisor gives
// up (Failed) — but with Options.BeforeConnect set, 401, 403 and 1008 are
// retried with the backoff, since the next attempt may carry new
// credentials; handshake 429 and 503 with Retry-After (seconds or an HTTP
// date), and close 1012 (service restart) and 1013 (try again later),
// lengthen the next wait; everything else, including close 1000, 1001 and
// 1006, is an ordinary reconnect. A server may say how long in a 1012 or
// 1013 close reason with "retry-after=N" (seconds); otherwise the wait is
// at least Options.CloseHint. A message over ReadLimit that breaks three
// connections in a row at the same place ends in Failed too. CloseStatus
// reads the close code from an error Messages yielded, Status().Err or
// Run's error.
//
// A bad url or option is one error wrapping supervisor.ErrInvalidOptions,
// such as `websocket: PingInterval -1s: negative`. No error, log line or
// Status holds the URL's user name and password (nor the Basic
// authorization net/http sends for them), a query value whose key is not
// in Options.PublicQuery, a value of Options.Header or of what
// BeforeConnect set, a close reason unmasked, or the body of a refused
// handshake — also after Run returned.
package websocket
