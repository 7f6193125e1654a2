// Package sse keeps a Server-Sent Events stream alive under a redial
// supervisor: New returns a Client, a streaming GET parsed by
// github.com/tmaxmax/go-sse, whose events the program reads with Events.
// The endpoint, secret and refusal rules are websocket's and gorilla's too
// (one core; README, "Adapters"); a 204, and a 200 that is not
// text/event-stream, also end the Client.
//
// Every request sends the id of the last event read as Last-Event-ID, so
// a server that keeps history loses nothing across reconnects; an empty
// id field resets it, as in EventSource. The server's `retry:` lengthens
// every later wait, never shortens it; `retry: 0` ends that. A stream silent for IdleTimeout,
// not even a keep-alive comment, is replaced. The read queues events for
// Events (Options.Buffer ahead); a program that holds it back for
// IdleTimeout/3 pauses the stream (ErrBehind), so that a dead server is
// still found within IdleTimeout. Client.Lag says how far behind it is.
package sse
