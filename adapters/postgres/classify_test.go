package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/pgtest"
)

func TestClassifyBySQLState(t *testing.T) {
	for code, want := range map[string]string{
		"28P01": "permanent", "28000": "permanent", "3D000": "permanent",
		"53300": "hint",
		"57P01": "retry", "57P02": "retry", "57P03": "retry", "08006": "retry", "08001": "retry", "08P01": "retry",
		"42601": "retry", "40001": "retry",
	} {
		t.Run(code, func(t *testing.T) {
			orig := &pgconn.PgError{Severity: "FATAL", Code: code, Message: "m"}
			err := postgres.Classify(fmt.Errorf("connect: %w", orig))
			hint, hinted := backoff.RetryAfterHint(err)
			got := "retry"
			switch {
			case backoff.IsPermanent(err):
				got = "permanent"
			case hinted:
				got = "hint"
				assert.Equal(t, postgres.DefaultTooManyConnectionsHint, hint)
			}
			assert.Equal(t, want, got)
			var pg *pgconn.PgError
			require.ErrorAs(t, err, &pg)
			assert.Equal(t, code, pg.Code)
			assert.Equal(t, "connect: FATAL: m (SQLSTATE "+code+")", err.Error())
		})
	}
	assert.NoError(t, postgres.Classify(nil))
	plain := errors.New("connection refused")
	assert.False(t, backoff.IsPermanent(postgres.Classify(plain)))
	assert.ErrorIs(t, postgres.Classify(plain), plain, "other chains are kept")
}

// TestClassifyDropsTheConnectErrorConfig classifies a real ConnectError:
// its Config (and password) must not survive, its PgError must.
func TestClassifyDropsTheConnectErrorConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, raw := pgx.Connect(ctx, shared.URL(pgtest.User, badPassword, "postgres"))
	var ce *pgconn.ConnectError
	require.ErrorAs(t, raw, &ce)
	require.True(t, holds(raw, badPassword), "pgx's error holds the password (this test's premise)")

	err := postgres.Classify(raw)
	assert.True(t, backoff.IsPermanent(err))
	assert.False(t, errors.As(err, &ce))
	assert.False(t, holds(err, badPassword))
	var pg *pgconn.PgError
	require.ErrorAs(t, err, &pg)
	assert.Equal(t, "28P01", pg.Code)
	assert.NotContains(t, err.Error(), "\n", "one line")
	for line := range strings.Lines(raw.Error()) { // pgx's tries, one a line: the TLS try of prefer, then the login
		assert.Contains(t, err.Error(), strings.TrimSuffix(strings.TrimSpace(line), ":"), "the text was already free of the password")
	}

	short, cancel2 := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancel2()
	<-short.Done()
	_, raw = pgx.Connect(short, shared.DSN())
	require.ErrorAs(t, raw, &ce)
	assert.ErrorIs(t, postgres.Classify(raw), context.DeadlineExceeded, "context errors are kept for errors.Is")
}
