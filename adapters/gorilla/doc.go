// Package gorilla keeps a github.com/gorilla/websocket connection alive
// under a redial supervisor: adapters/websocket's twin over the other
// library, with the same options, classes, secrets and Messages loop (one
// core; README, "Adapters").
//
// gorilla/websocket allows one reader and one writer per connection. The
// writer is the program's (one goroutine at a time): the adapter writes
// its pings and close frame with WriteControl, which is safe beside it.
// The reader is Messages, or with Options.WriteOnly the adapter. The
// adapter sets the pong and close handlers: a program with its own read
// loop keeps them (conn.PongHandler() returns the adapter's, to wrap).
package gorilla
