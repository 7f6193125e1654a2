package sse

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/httpcore"
	"github.com/redial-go/redial/internal/redact"
)

// Watch is the read: it runs on the supervisor's goroutine, parses the
// stream with go-sse and hands each event to the program's Events loop
// through the bounded buffer, waiting while the buffer is full. It returns
// when the stream breaks (the server ended it, the network failed, the
// stream stayed silent for IdleTimeout, an event exceeded ReadLimit),
// with the server's last `retry:` as a backoff.RetryAfter hint, or when
// ctx ends (the supervisor stops). The events read but not yet taken by
// the program are then dropped, and a break is owed to the program as one
// error (see Events).
func (l *library) Watch(ctx context.Context, s *Stream, _ *httpcore.State) error {
	err := l.read(ctx, s)
	if ctx.Err() != nil {
		l.feed.fence(s, nil)
		return ctx.Err()
	}
	l.feed.fence(s, fmt.Errorf("sse: %w", err))
	return err
}

// read parses s's body until it fails, and returns why, made safe: an
// event over ReadLimit at the same place as the last PoisonBreaks-1 breaks
// is final (see httpcore.Core.OverLimit).
//
// go-sse parses a stream it holds only through a Connection, the one API
// of it that reports the `retry:` field (sse.Read drops it): the
// Connection is given s's response by a RoundTripper that hands it out
// once, and asked to retry once, so that its OnRetry reports the wait
// the server asked for, which ends it. Its own backoff is neutralized: a
// 1ns base (no `retry:` rounds to no hint) and the least jitter.
func (l *library) read(ctx context.Context, s *Stream) error {
	stop := context.AfterFunc(ctx, func() { s.cancel(errClosed) })
	defer stop()
	cctx, over := context.WithCancel(context.Background())
	defer over()
	var (
		lost  error
		retry time.Duration
	)
	client := gosse.Client{
		HTTPClient:        &http.Client{Transport: &heldResponse{resp: s.resp}},
		ResponseValidator: gosse.NoopValidator, // Connect checked the answer
		Backoff:           gosse.Backoff{InitialInterval: time.Nanosecond, Jitter: 1e-9, MaxRetries: 1},
		OnRetry: func(err error, next time.Duration) {
			lost, retry = err, next
			over()
		},
	}
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, heldURL, nil)
	if err != nil {
		return err // a constant url: never
	}
	conn := client.NewConnection(req)
	conn.Buffer(nil, int(min(l.ReadLimit, math.MaxInt)))
	conn.SubscribeToAll(func(e gosse.Event) { l.feed.deliver(ctx, s, e) })
	if err := conn.Connect(); lost == nil {
		lost = err
	}
	var ce *gosse.ConnectionError
	if errors.As(lost, &ce) {
		lost = ce.Err // without the request
	}
	err = l.lossError(s, lost)
	if d := retry.Round(time.Millisecond); d > 0 {
		err = backoff.RetryAfter(err, d)
	}
	return err
}

// lossError says why s broke, masked, with only safe parts of err's chain.
func (l *library) lossError(s *Stream, err error) error {
	cause := context.Cause(s.ctx)
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
