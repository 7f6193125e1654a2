package postgres

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/backoff"
)

// DefaultTooManyConnectionsHint is how long a supervisor waits at least
// after the server refused a connection with SQLSTATE 53300 (too many
// connections), unless the options' TooManyConnectionsHint say otherwise.
// Slots free up when other clients disconnect, which takes seconds, not the
// backoff's first few hundred milliseconds; a longer first wait keeps a
// fleet from filling the last free slot's queue with retries.
const DefaultTooManyConnectionsHint = 5 * time.Second

// Classify maps a pgx error to redial's error classes by its SQLSTATE:
//
//   - 28P01 (invalid password), 28000 (invalid authorization, e.g. no
//     pg_hba.conf entry) and 3D000 (no such database) are
//     backoff.Permanent: retrying cannot fix them, so a supervisor goes to
//     Failed at once;
//   - 53300 (too many connections) is retried no sooner than
//     DefaultTooManyConnectionsHint (backoff.RetryAfter);
//   - 57P01 (admin shutdown), 57P02 (crash shutdown), 57P03 (cannot
//     connect now: starting up or in recovery), class 08 (connection
//     exception), network errors and everything else are retried with the
//     backoff.
//
// A pgx error holds one error per try (pgx walks a DSN's host list, each
// host twice with sslmode=prefer or allow, and stops at the first 28P01
// or 3D000). A try whose TLS negotiation failed (prefer's TLS try against
// a server without TLS, allow's after a refused plain login) is a step
// within that host's answer, not an answer; the error is Permanent only
// when every answer is one of those SQLSTATEs. With sslmode=require
// against a server without TLS the refusal is the only answer: retried,
// since the server may yet be configured for TLS. The supervisors of this
// package dial one host per attempt and go further: permanent only when
// every host said so, each host's last answer since the last connection
// counting, so a primary that refuses connections while it restarts, next
// to a standby that answers 28000, is retried.
//
// It also removes credentials: a *pgconn.ConnectError, which carries the
// whole parsed Config and so the password, is replaced by an error with the
// same redacted text that still answers errors.As for *pgconn.PgError (see
// SafeError). Classify(nil) is nil. The supervisors of this package use it
// with their DSN's password (and BeforeConnect's) as known secrets, their
// own 53300 hint, and, when BeforeConnect is set, 28P01 and 28000 retried
// with the backoff: the next attempt may carry new credentials.
func Classify(err error) error {
	return classify(err, nil, DefaultTooManyConnectionsHint, false, nil)
}

// classify is Classify with the secrets to mask, the 53300 hint,
// whether credentials rotate (BeforeConnect is set: then only 3D000 is
// permanent), and, with several endpoints, their answers: err is the
// current endpoint's, and permanent only once every endpoint's last
// answer was.
func classify(err error, secrets []string, tooMany time.Duration, rotating bool, hosts *answers) error {
	if err == nil {
		return nil
	}
	out := scrub(err, secrets)
	// pgx tries every address (and, with sslmode=prefer or allow, TLS and
	// plain) and joins the errors: give up only when every answer says so.
	// A TLS try that failed is a step within an answer, not one, unless
	// nothing else answered (sslmode=require against a server without
	// TLS). A standby answering 28000 while the primary restarts is no
	// reason to give up.
	var answered, steps []error
	for _, leaf := range leaves(out, nil) {
		if _, ok := leaf.(*stepError); ok {
			steps = append(steps, leaf)
		} else {
			answered = append(answered, leaf)
		}
	}
	if len(answered) == 0 {
		answered = steps
	}
	permanent, hinted := true, false
	for _, leaf := range answered {
		var pg *pgconn.PgError
		if !errors.As(leaf, &pg) || !permanentCode(pg.Code, rotating) {
			permanent = false
		}
		hinted = hinted || pg != nil && pg.Code == "53300"
	}
	permanent = hosts.record(permanent)
	switch {
	case permanent:
		return backoff.Permanent(out)
	case hinted:
		return backoff.RetryAfter(out, tooMany)
	}
	// 57P01, 57P02, 57P03, class 08, network errors and the rest: the
	// server is going away or coming back: retry.
	return out
}

// permanentCode reports the SQLSTATEs that retrying cannot fix; with
// rotating credentials a refused login may succeed with the next ones.
func permanentCode(code string, rotating bool) bool {
	if rotating {
		return code == "3D000"
	}
	return code == "28P01" || code == "28000" || code == "3D000"
}

// leaves returns the errors at the ends of err's tree: a *pgconn.PgError
// is one, a stepError is one, and so is every error that wraps nothing.
func leaves(err error, out []error) []error {
	switch err.(type) {
	case *pgconn.PgError, *stepError:
		return append(out, err)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		if es := u.Unwrap(); len(es) > 0 {
			for _, e := range es {
				out = leaves(e, out)
			}
			return out
		}
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return leaves(e, out)
		}
	}
	return append(out, err)
}
