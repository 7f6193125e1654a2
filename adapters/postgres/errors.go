package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"slices"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/redact"
	"github.com/redial-go/redial/supervisor"
)

// ErrMissed is wrapped by the error a Listener's Notifications yields once
// after every reconnect: notifications sent while it was disconnected are
// lost, so the program re-reads the state they describe.
var ErrMissed = errors.New("notifications may have been missed")

// SafeError returns err in a form that can be logged or stored without
// exposing the database password: for errors of queries run on a
// *pgxpool.Pool directly, whose *pgconn.ConnectError holds the parsed
// Config, password included, where errors.As or a reflective logger
// reaches it. The text is err's on one line with the passwords masked; the
// chain keeps what holds no secret: each host's *pgconn.PgError, network
// and context errors, the backoff marks. SafeError(nil) is nil. The errors
// this package returns have been through the same already.
func SafeError(err error) error {
	if err == nil {
		return nil
	}
	var secrets []string
	walk(err, func(e error) {
		switch e := e.(type) {
		case *pgconn.ConnectError:
			if e.Config != nil && e.Config.Password != "" {
				secrets = append(secrets, e.Config.Password)
			}
		case *pgconn.ParseConfigError:
			secrets = append(secrets, guesses(e.ConnString)...)
			secrets = append(secrets, fragments(e.ConnString)...)
		}
	})
	return scrub(err, plain(secrets))
}

// hookError is a BeforeConnect's error: it may quote the credentials it
// was fetching, so scrub keeps only its masked text and safe parts.
type hookError struct{ err error }

func (e *hookError) Error() string { return "BeforeConnect: " + e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// scrub returns err with every secret masked in its text. When nothing
// is masked and no value in the chain holds a password (pgx's
// ConnectError and ParseConfigError do, a hookError may) err is returned
// as it is; otherwise an error with the masked text whose chain keeps,
// for every end of err's tree, what holds no secret (safeParts: Classify
// must still see each host's answer), and the backoff marks.
func scrub(err error, secrets masker) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	masked := secrets.Text(text)
	var ce *pgconn.ConnectError
	var pe *pgconn.ParseConfigError
	var he *hookError
	if masked == text && !errors.As(err, &ce) && !errors.As(err, &pe) && !errors.As(err, &he) {
		return err
	}
	out := redact.Scrubbed(oneLine(masked), safeParts(err, secrets, nil)...)
	if backoff.IsPermanent(err) {
		out = backoff.Permanent(out)
	}
	if d, ok := backoff.RetryAfterHint(err); ok {
		out = backoff.RetryAfter(out, d)
	}
	return out
}

// kept are the errors safeParts keeps as they are: they hold no text of
// the program's or the server's.
var kept = []error{context.Canceled, context.DeadlineExceeded, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed,
	pgconn.ErrConnClosed, supervisor.ErrSilent, supervisor.ErrPanicked, supervisor.ErrReplaced, ErrMissed, ErrWrongRole,
	pgconn.ErrReadOnlyConnection, pgconn.ErrReadWriteConnection, pgconn.ErrPrimaryConnection, pgconn.ErrStandbyConnection}

// safeParts appends, for every end of err's tree, what may be kept of it:
// a copy of a *pgconn.PgError with its texts masked; a network or system
// error and the kept errors as they are; a TLS try within one answer as a
// stepError; and for anything else its masked text only, so that it still
// counts as an answer that is not a server's.
func safeParts(err error, secrets masker, out []error) []error {
	switch e := err.(type) {
	case *pgconn.PgError:
		c := *e
		for _, f := range []*string{&c.Message, &c.Detail, &c.Hint, &c.Where, &c.InternalQuery} {
			*f = secrets.Text(*f)
		}
		return append(out, &c)
	case *net.OpError, *net.DNSError, syscall.Errno:
		return append(out, err)
	}
	if reflect.TypeOf(err).Comparable() && slices.Contains(kept, err) {
		return append(out, err)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		if es := u.Unwrap(); len(es) > 0 {
			for _, e := range es {
				if tlsStep(e) {
					out = append(out, &stepError{redact.Scrubbed(secrets.Text(e.Error()), safeParts(e, secrets, nil)...)})
					continue
				}
				out = safeParts(e, secrets, out)
			}
			return out
		}
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return safeParts(e, secrets, out)
		}
	}
	return append(out, redact.Scrubbed(secrets.Text(err.Error())))
}

// oneLine puts pgx's tries, one a line, on one line separated by "; ".
func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.NewReplacer(":\n\t", ": ", "\n\t", "; ", "\n", "; ").Replace(s)
}

func walk(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, f)
		}
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), f)
	}
}

// stepError is one of pgx's tries that failed in the TLS negotiation
// (prefer's TLS try, allow's after the plain one): a step within one
// answer, which classify looks past.
type stepError struct{ err error }

func (e *stepError) Error() string { return e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// tlsStep reports whether e, one try of a *pgconn.ConnectError
// ("host:port (host): msg: cause"), failed in the TLS negotiation. pgx
// exports neither the type nor the step, so the text tells;
// TestSSLModeMatrix pins it against real servers.
func tlsStep(e error) bool {
	inner := errors.Unwrap(e)
	if inner == nil {
		return false
	}
	msg := inner.Error()
	return strings.HasPrefix(msg, "tls error: ") && strings.HasSuffix(e.Error(), "): "+msg)
}
