package sse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// Watch is the read, on the supervisor's goroutine: it queues each event
// for Events and returns when the stream breaks or ctx ends, owing the
// break to the program as one error. A pause (see feed) closes the
// request; a new one resumes after the last event read once the program
// took half the buffer, or after another IdleTimeout/3 to check on the
// server.
func (l *library) Watch(ctx context.Context, s *stream, st *httpcore.State) error {
	hold := l.feed.hold
	defer l.feed.flush() // what the last leg queued, when ctx ended it
	for {
		err := l.read(ctx, s)
		if ctx.Err() != nil {
			if errors.Is(context.Cause(ctx), supervisor.ErrSwitched) { // a replacement: said once, before its events
				l.feed.pushBreak(fmt.Errorf("sse: %w", supervisor.ErrSwitched))
			}
			return ctx.Err()
		}
		if !errors.Is(err, ErrBehind) {
			l.feed.pushBreak(fmt.Errorf("sse: %w", err))
			return err
		}
		l.feed.pushBreak(fmt.Errorf("sse: read: %w: %d events waited %v; paused, resuming after the last event read", ErrBehind, l.feed.max, hold))
		l.feed.waitRoom(ctx.Done(), hold)
		if err := l.resume(ctx, s, st.Endpoint); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			l.feed.pushBreak(fmt.Errorf("sse: %w", err))
			return err
		}
	}
}

// resume opens s's next leg, within ConnectTimeout and IdleTimeout/3.
func (l *library) resume(ctx context.Context, s *stream, endpoint int) error {
	rctx, cancel := context.WithTimeout(ctx, min(l.timeout, l.feed.hold))
	defer cancel()
	g, resp, err := l.open(rctx, s.attempt)
	if g == nil {
		return l.RequestError(rctx, endpoint, err, resp)
	}
	s.setLeg(g)
	return nil
}

// read parses s's current leg until it fails, closes it, and returns why,
// made safe: ErrBehind for a pause; an event over ReadLimit may be final
// (httpcore.Core.OverLimit).
//
// go-sse's Connection gets the leg's response from a RoundTripper that
// hands it out once, and its OnRetry, called once, ends it; its own
// backoff is neutralized (1ns, least jitter). `retry:` is the leg's
// retryScan's: go-sse's OnRetry cannot tell `retry: 0` from none.
func (l *library) read(ctx context.Context, s *stream) error {
	g := s.current()
	if g == nil {
		return errClosed
	}
	defer s.setLeg(nil)
	stop := context.AfterFunc(ctx, func() { g.cancel(errClosed) })
	defer stop()
	cctx, over := context.WithCancel(context.Background())
	defer over()
	var lost error
	client := gosse.Client{
		HTTPClient:        &http.Client{Transport: &heldResponse{resp: g.resp}},
		ResponseValidator: gosse.NoopValidator, // Connect checked the answer
		Backoff:           gosse.Backoff{InitialInterval: time.Nanosecond, Jitter: 1e-9, MaxRetries: 1},
		OnRetry: func(err error, _ time.Duration) {
			lost = err
			over()
		},
	}
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, heldURL, nil)
	if err != nil {
		return err // a constant url: never
	}
	conn := client.NewConnection(req)
	conn.Buffer(nil, int(min(l.ReadLimit, math.MaxInt)))
	conn.SubscribeToAll(func(e gosse.Event) { l.deliver(s, g, e) })
	if err := conn.Connect(); lost == nil {
		lost = err
	}
	if g.retry.seen {
		l.retry.set(g.retry.last)
	}
	if errors.Is(context.Cause(g.ctx), ErrBehind) {
		return ErrBehind
	}
	var ce *gosse.ConnectionError
	if errors.As(lost, &ce) {
		lost = ce.Err // without the request
	}
	return l.lossError(s, g, lost)
}

// deliver queues e, which leg g of s read. An event that finds the
// program too far behind pauses g.
func (l *library) deliver(s *stream, g *leg, e gosse.Event) {
	if g.skip || g.over {
		g.skip = false
		return
	}
	id := e.LastEventID
	if !httpcore.ValidHeaderValue(id) {
		id = l.refuse(id)
	}
	it := item{ev: Event{ID: id, Type: e.Type, Data: e.Data}, silent: e.Data == "", at: g.readAt}
	if !l.feed.push(g.ctx.Done(), it) {
		g.over = true
		g.cancel(ErrBehind)
		return
	}
	s.read++
	s.lastSeen = id
}

// refuse returns the id an event gets when the server's id, id, could not
// be sent back as Last-Event-ID (net/http refuses its control character):
// the position, the last id that can. Adopting id would fail every later
// request before it is sent, forever; sending none would resume from the
// server's default point and lose what came between. From the last good
// id the server sends again what came since: doubled, never lost. The
// Logger is told once per Client, as a server sending such ids sends
// them often.
func (l *library) refuse(id string) string {
	pos := l.feed.position()
	if l.logger != nil && l.refused.CompareAndSwap(false, true) {
		l.logger.LogAttrs(context.Background(), slog.LevelWarn, "event id refused: not sendable as Last-Event-ID",
			slog.String(supervisor.LogName, l.name), slog.String("id", l.Text(strconv.Quote(id))), slog.String("kept", pos))
	}
	return pos
}

// lossError says why leg g of s broke, masked, with only safe parts of
// err's chain.
func (l *library) lossError(s *stream, g *leg, err error) error {
	cause := context.Cause(g.ctx)
	var text string
	var keep []error
	switch {
	case errors.Is(cause, ErrIdleTimeout):
		text = fmt.Sprintf("read: %v (%v): the path or the server is dead", ErrIdleTimeout, l.IdleTimeout)
		keep = []error{ErrIdleTimeout}
	case errors.Is(err, bufio.ErrTooLong):
		at := "#" + strconv.Itoa(s.read)
		if s.lastSeen != "" {
			at = "id " + s.lastSeen
		}
		return l.OverLimit(redact.Scrubbed(fmt.Sprintf("read: %v (%d bytes)", ErrEventTooLarge, l.ReadLimit), ErrEventTooLarge), at)
	case errors.Is(err, io.EOF):
		text = "read: the server ended the stream (EOF)"
		keep = []error{io.EOF}
	case errors.Is(err, gosse.ErrUnexpectedEOF):
		text = "read: the stream ended in the middle of an event"
		keep = []error{gosse.ErrUnexpectedEOF}
	case err == nil:
		text = "read: the stream ended"
	default:
		text = "read: " + l.Text(err.Error())
		keep = redact.SafeChain(err)
	}
	l.OtherBreak()
	return redact.Scrubbed(text, keep...)
}

// heldURL is the url of the request a Connection makes to its
// heldResponse: never sent anywhere.
const heldURL = "http://held.invalid/"

// heldResponse is a RoundTripper that hands out one response it already
// holds, once. Only the Connection's goroutine, Watch's, calls it.
type heldResponse struct{ resp *http.Response }

var errHeldUsed = errors.New("the stream was read already")

func (h *heldResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.resp == nil {
		return nil, errHeldUsed
	}
	resp := h.resp
	h.resp = nil
	resp.Request = r
	return resp, nil
}
