// Package gorilla keeps a github.com/gorilla/websocket connection alive
// under a redial supervisor. It is adapters/websocket's twin over the
// other library: the same Options, classes, heartbeat, secrets and
// Messages loop.
//
// New(url, Options) returns a *supervisor.Supervisor[*websocket.Conn]: it
// dials url with gorilla's Dialer, runs Options.Supervisor.OnConnect (the
// place to re-send subscriptions: it runs after every reconnect, before
// the state is Connected), watches the connection with a ping heartbeat,
// and reconnects with backoff when it breaks. Messages reads it:
//
//	feed, err := gorilla.New("wss://feed.example/prices", gorilla.Options{})
//	...
//	go feed.Run(ctx)
//	for msg, err := range gorilla.Messages(readCtx, feed) {
//		if err != nil {
//			continue // the connection broke: messages may have been missed
//		}
//		handle(msg.Data)
//	}
//
// # One reader, one writer
//
// gorilla/websocket allows one concurrent reader and one concurrent
// writer per connection; WriteControl and Close are safe beside both. The
// connection is shared so:
//
//   - the program owns the writer: WriteMessage, NextWriter, WriteJSON and
//     SetWriteDeadline from one goroutine at a time (OnConnect's writes
//     come before the heartbeat starts). The adapter never uses them: its
//     pings and its close frame go through WriteControl, so they need no
//     lock of the program's;
//   - the reader is Messages (one loop at a time: a second loop yields
//     ErrReaderBusy and ends), or, with Options.WriteOnly, the adapter's
//     own reader goroutine, one per connection, which ends before Close
//     returns;
//   - the adapter sets the pong and close handlers: a program that reads
//     with its own loop keeps them (wrap them: conn.PongHandler() returns
//     the adapter's), and calls s.Invalidate(conn, err) when a read fails.
//
// # Reading, and the heartbeat
//
// gorilla/websocket handles control frames (pongs, pings, close frames)
// only inside a read. The heartbeat runs on the supervisor's own
// goroutine: every PingInterval it writes a ping and waits PingTimeout
// for the pong, which the reader's pong handler records. Every pong and
// every message read through Messages also moves the connection's read
// deadline to PingInterval + PingTimeout from then. So a silent peer (a
// dead NAT entry, a frozen server) is found within PingInterval +
// PingTimeout — 15s with the defaults, 10s and 5s — by both: the
// heartbeat fails, and the read in progress fails with ErrHeartbeat;
// the connection is dropped at once. An attempt on a stalled path fails at
// ConnectTimeout (10s by default). And:
//
//   - a program that receives messages ranges over Messages from one
//     goroutine: it waits for the live connection, reads, and on failure
//     tells the supervisor (Invalidate) so that it reconnects at once and
//     the close status reaches Classify; the failure is yielded once as an
//     error, then the next connection's messages follow; the loop ends when
//     the supervisor stops or gives up, or its ctx ends;
//   - a program that only sends sets Options.WriteOnly: the adapter then
//     reads for it;
//   - if nothing reads, the pongs are never seen: the heartbeat fails after
//     PingInterval + PingTimeout and the connection is replaced, with an
//     ErrHeartbeat in Status that says nothing reads it.
//
// # Limits, compression and shutdown
//
// A message larger than ReadLimit (1 MiB by default) fails the read with
// websocket.ErrReadLimit (gorilla tells the server with 1009); the
// connection is dropped and the supervisor reconnects, so memory stays
// bounded whatever the server sends. Options.EnableCompression offers
// permessage-deflate without context takeover (off by default, as in
// gorilla/websocket). When the supervisor stops it writes a close frame
// (1000, normal closure) on a healthy connection and, when a reader of
// this package reads it, waits at most CloseTimeout for the server's
// answer; the loop over Messages then ends without an error. A connection
// known to be broken is dropped at once. gorilla's reads take no ctx: a
// Messages ctx that ends mid-read drops the connection; to leave politely,
// end Run's ctx first and the reader's after Run returned.
//
// # Errors and credentials
//
// Classify turns the transport's errors into the supervisor's classes,
// the same as adapters/websocket's (both are built on one core): handshake
// 401, 403 and 404 and close 1008 (policy violation) are permanent, so the
// supervisor gives up (Failed); handshake 429 and 503 with Retry-After
// (seconds or an HTTP date, clamped to MaxHint), and close 1012 (service
// restart) and 1013 (try again later), lengthen the next wait; everything
// else, including close 1000, 1001 and 1006, is an ordinary reconnect. A
// server may say how long in a 1012 or 1013 close reason with
// "retry-after=N" (seconds); otherwise the wait is at least
// Options.CloseHint. A message over ReadLimit that breaks three
// connections in a row at the same place ends in Failed too. CloseStatus
// reads the close code from an error Messages yielded, Status().Err or
// Run's error.
//
// Options.BeforeConnect runs before every attempt and may change the url
// and the header (a rotating token); with it, a 401, a 403 and a close
// 1008 are retried with the backoff, since the next attempt may carry new
// credentials.
//
// # Replicas
//
// Options.Replicas adds more URLs of the same service: after a failed
// attempt or a lost connection the supervisor goes to the next one at once
// (within FailoverSpread), backs off only when every one failed, and says
// in Status.Endpoint which is in use; an error names its endpoint.
//
// A bad url or option is one error wrapping supervisor.ErrInvalidOptions,
// such as `gorilla: PingInterval -1s: negative`. No error, log line or
// Status holds the url's user name and password (sent as Basic
// authorization: gorilla's Dialer refuses them in the url), a query value
// whose key is not in Options.PublicQuery, a value of Options.Header or of
// what BeforeConnect set, a close frame's text unmasked, or the body of a
// refused handshake (only its status and Retry-After are read).
package gorilla
