package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
)

// ErrMissed is wrapped by the error a Listener's Notifications yields once
// after every reconnect: notifications sent while it was disconnected are
// lost, so the program re-reads the state they describe.
var ErrMissed = errors.New("notifications may have been missed")

// scrub returns err with every secret masked in its text. A chain that
// holds a *pgconn.ConnectError (its Config field carries the password) or
// a *pgconn.ParseConfigError (its ConnString field does) is replaced by a
// new error with the redacted text that keeps only what holds no secret:
// a copy of the server's *pgconn.PgError, context.Canceled and
// context.DeadlineExceeded for errors.Is, and the Permanent and RetryAfter
// marks. Any other chain is kept, behind redact.Error.
func scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	var ce *pgconn.ConnectError
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &ce) && !errors.As(err, &pe) {
		return redact.Error(err, secrets...)
	}
	var keep []error
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		c := *pg
		keep = append(keep, &c)
	}
	for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			keep = append(keep, target)
		}
	}
	out := redact.Scrubbed(redact.Text(err.Error(), secrets...), keep...)
	if backoff.IsPermanent(err) {
		out = backoff.Permanent(out)
	}
	if d, ok := backoff.RetryAfterHint(err); ok {
		out = backoff.RetryAfter(out, d)
	}
	return out
}
