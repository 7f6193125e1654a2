package postgres

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/redial-go/redial/backoff"
)

// DefaultTooManyConnectionsHint is the shortest wait after a 53300 refusal
// (too many connections): slots free up in seconds, not in the backoff's
// first milliseconds, and a fleet must not queue on the last free one.
const DefaultTooManyConnectionsHint = 5 * time.Second

// Classify maps a pgx error to redial's classes by SQLSTATE: 28P01, 28000
// and 3D000 are backoff.Permanent when every answer in it (one per host
// pgx tried; a failed TLS try is none) is one of them; 53300 is
// backoff.RetryAfter DefaultTooManyConnectionsHint; the rest is retried.
// Its result holds no password (see SafeError). The supervisors of this
// package use it with their own secrets, hint and hosts' answers, and with
// BeforeConnect only 3D000 permanent. Classify(nil) is nil.
func Classify(err error) error {
	return classify(err, plain(nil), DefaultTooManyConnectionsHint, false, nil)
}

// classify is Classify with the secrets, the 53300 hint, whether
// credentials rotate, and, with several endpoints, their answers: err is
// the current endpoint's, permanent once every endpoint's last one was.
func classify(err error, secrets masker, tooMany time.Duration, rotating bool, hosts *answers) error {
	if err == nil {
		return nil
	}
	out := scrub(err, secrets)
	var answered, steps []error
	for _, leaf := range leaves(out, nil) {
		if _, ok := leaf.(*stepError); ok {
			steps = append(steps, leaf)
		} else {
			answered = append(answered, leaf)
		}
	}
	if len(answered) == 0 { // sslmode=require against a server without TLS
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
	return out
}

// permanentCode reports the SQLSTATEs that retrying cannot fix; with
// rotating credentials the next login may succeed.
func permanentCode(code string, rotating bool) bool {
	if rotating {
		return code == "3D000"
	}
	return code == "28P01" || code == "28000" || code == "3D000"
}

// leaves returns the ends of err's tree: a *pgconn.PgError, a stepError,
// or an error that wraps nothing.
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
