// Package sse keeps a Server-Sent Events stream alive under a redial
// supervisor.
//
// New(url, Options) returns a *Client: a supervisor over a streaming HTTP
// GET (Accept: text/event-stream) whose events, parsed by
// github.com/tmaxmax/go-sse, the program reads with Events. It embeds the
// *supervisor.Supervisor: Run, Status, Subscribe, Done, Err, Name:
//
//	feed, err := sse.New("https://feed.example/prices?token=...", sse.Options{})
//	...
//	go feed.Run(ctx)
//	for ev, err := range feed.Events(ctx) {
//		if err != nil {
//			continue // the stream broke; it resumes after the last event received
//		}
//		handle(ev.ID, ev.Type, ev.Data)
//	}
//	// here feed.Err() says why it ended: nil (ctx ended) or why it gave up
//
// # Resuming
//
// Every request sends the id of the last event the Client read as
// Last-Event-ID (Options.LastEventID before the first), so a server that
// keeps history loses nothing across reconnects. The Client reads ahead of
// the program (Options.Buffer events); what it read before a break is
// delivered before the break's error, and the next stream follows, none
// twice. As EventSource's, an empty id field resets the position: the next
// request sends no Last-Event-ID. Client.LastEventID returns the id of the
// last event delivered, for a program that persists it and resumes from it
// on its next run.
//
// # Reading, the program's lag, the idle timeout and the server's hints
//
// The read runs on the supervisor's own goroutine (it is the Watcher): no
// goroutine is added per stream. It queues each event for the Events loop
// at once; Client.Lag says how many wait and for how long (Prometheus,
// OpenTelemetry and the status page show it, and health.SourceOptions.MaxLag
// makes readiness depend on it). While the buffer is full the read waits,
// but not past IdleTimeout/3: a program that held it back that long pauses
// the stream (ErrBehind, yielded once), since a stream held back cannot
// tell a live server from a dead one whose last bytes the kernel holds.
// The paused stream's request is closed; a new one resumes after the last
// event read once the program has taken half the buffer, or after another
// IdleTimeout/3 to check on the server. Memory stays bounded, and a dead
// server is found within IdleTimeout however slow the program; a server
// that keeps no history skips, for a paused Client, what it sent meanwhile.
// An event larger than ReadLimit (1 MiB) breaks the stream
// (ErrEventTooLarge); one that breaks three streams in a row at the same
// place (an event the server keeps in its history, so that every stream
// resumes just before it) ends the Client (Failed), with an error that
// names ReadLimit.
//
// A stream silent, not even a keep-alive comment, for longer than
// IdleTimeout (15s by default) is treated as broken and replaced
// (ErrIdleTimeout): with the defaults a dead path (a dropped NAT entry, a
// frozen server) is found within 15s. Servers send comment lines as
// keep-alives; set IdleTimeout above their interval.
//
// The server's `retry:` field sets the Client's reconnection time for the
// rest of its life, as EventSource's does: every reconnect after it, after
// a broken stream or a failed attempt, waits at least that long. It is a
// hint to the supervisor: it lengthens the backoff's wait, never shortens
// it (the WHATWG text allows waiting more), a longer Retry-After stands,
// and MaxHint caps it. A 429 or 503 with Retry-After (seconds or an HTTP
// date) is a hint too.
//
// # Answers that end it
//
// An answer of 204 No Content ends the Client for good (Failed), as the
// SSE specification says: the server asks the client not to reconnect.
// So do a 200 whose Content-Type is not text/event-stream (the error says
// which type came), and 401, 403 and 404 — except that with
// Options.BeforeConnect set, a 401 or 403 is retried with the backoff: the
// hook runs before every attempt and may bring new credentials (a rotating
// token in the url or the header). Every other answer, and every network
// failure, is an ordinary reconnect. HandshakeError carries the status.
//
// # Replicas
//
// Options.Replicas adds more URLs of the same service (sharing the event
// ids): after a failed attempt or a lost stream the next one is tried at
// once (within FailoverSpread), the backoff runs once per round, and the
// request resumes from the same Last-Event-ID whichever replica it goes
// to. Status.Endpoint says which one is in use.
//
// # Errors and secrets
//
// A bad url or option is one error wrapping supervisor.ErrInvalidOptions,
// such as `sse: IdleTimeout -1s: negative`. No error, log line, Status or
// probe body holds the url's user name and password, any query value but
// those of Options.PublicQuery, or the values of Options.Header (each
// name=value part of them included) or of BeforeConnect's last 16 calls,
// even where the server echoes them, also after Run returned: a refused
// request's body is never read, an unexpected Content-Type is shown with
// them masked, and event data never goes in an error.
package sse
