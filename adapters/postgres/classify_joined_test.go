package postgres_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
)

// pgx tries every host (and, with sslmode=prefer, TLS then plain) and joins
// the per-host errors. 28000 from one host (a standby whose pg_hba lacks an
// entry, or the TLS attempt) next to "connection refused" from the primary
// that is restarting is not a reason to give up for good.
func TestJoinedHostErrorsAreNotPermanentUnlessAllAre(t *testing.T) {
	hba := &pgconn.PgError{Severity: "FATAL", Code: "28000", Message: "no pg_hba.conf entry for host"}
	refused := fmt.Errorf("dial tcp 10.0.0.2:5432: %w", syscall.ECONNREFUSED)
	err := fmt.Errorf("failed to connect: %w", errors.Join(hba, refused))
	assert.False(t, backoff.IsPermanent(postgres.Classify(err)), "classified %v as permanent", err)
}

func TestJoinedPermanentErrorsStayPermanent(t *testing.T) {
	bad := &pgconn.PgError{Severity: "FATAL", Code: "28P01", Message: "password authentication failed"}
	err := fmt.Errorf("failed to connect: %w", errors.Join(bad, &pgconn.PgError{Severity: "FATAL", Code: "28000"}))
	assert.True(t, backoff.IsPermanent(postgres.Classify(err)))
	tooMany := fmt.Errorf("failed to connect: %w", errors.Join(&pgconn.PgError{Code: "53300"}, fmt.Errorf("dial: %w", syscall.ECONNREFUSED)))
	_, hinted := backoff.RetryAfterHint(postgres.Classify(tooMany))
	assert.True(t, hinted)
	assert.False(t, backoff.IsPermanent(postgres.Classify(tooMany)))
}

// An error that wraps an empty list is an end of the tree, not nothing.
type emptyJoin struct{}

func (emptyJoin) Error() string   { return "connection refused" }
func (emptyJoin) Unwrap() []error { return nil }

func TestAnErrorWrappingNothingIsNotPermanent(t *testing.T) {
	assert.False(t, backoff.IsPermanent(postgres.Classify(emptyJoin{})))
	assert.False(t, backoff.IsPermanent(postgres.Classify(errors.Join(emptyJoin{}, &pgconn.PgError{Code: "28P01"}))))
}
