package redact_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/redact"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want, secret string }{
		{"dial postgres://app:s3cret@db:5432/x failed", "dial postgres://app:xxxxx@db:5432/x failed", "s3cret"},
		{"postgres://app:p@ss@db/x", "postgres://app:xxxxx@db/x", "p@ss"},
		{`GET "wss://feed.example/ws?token=abc123&room=7": 401`, `GET "wss://feed.example/ws?room=7": 401`, "abc123"},
		{"wss://h/ws?api_key=K1&signature=S1&X-Amz-Signature=S2", "wss://h/ws", "K1"},
		{"host=db user=app password=hunter22 dbname=x", "host=db user=app password=xxxxx dbname=x", "hunter22"},
		{"host=db password='with space' dbname=x", "host=db password=xxxxx dbname=x", "with space"},
		{"token: Bearer abc token=zzz9", "token: xxxxx token=xxxxx", "zzz9"},
		{"host=db user=app sslpassword=s3cretpw sslmode=require", "host=db user=app sslpassword=xxxxx sslmode=require", "s3cretpw"},
		{"DB_PASSWORD=s3cretpw PGPASSWORD='s3 cretpw' psql", "DB_PASSWORD=xxxxx PGPASSWORD=xxxxx psql", "s3"},
		{"api_token=s3cretpw&x=1", "api_token=xxxxx&x=1", "s3cretpw"},
		{"GET /x: Authorization: Bearer s3cretpw", "GET /x: Authorization: xxxxx", "s3cretpw"},
		{`{"user":"app","password":"s3cretpw"}`, `{"user":"app","password":xxxxx}`, "s3cretpw"},
		{"dial postgres://app:1234?s3cretpw@db/app: refused", "dial postgres://app:xxxxx@db/app: refused", "s3cretpw"},
		{"wss://app:?s3cret#pw@h/x failed", "wss://app:xxxxx@h/x failed", "s3cret"},
		{"FATAL: password authentication failed for user \"app\"", "FATAL: password authentication failed for user \"app\"", ""},
		{"no secrets here: connection refused", "no secrets here: connection refused", ""},
	} {
		got := redact.Text(tc.in)
		assert.Equal(t, tc.want, got, "in: %s", tc.in)
		if tc.secret != "" {
			assert.NotContains(t, got, tc.secret)
		}
	}
}

func TestRedactKnownSecrets(t *testing.T) {
	// A password with a space defeats every pattern; naming it does not.
	in := "connect postgres://app:pa ss@db/x: user=app password=pa ss"
	got := redact.Text(in, "pa ss")
	assert.NotContains(t, got, "pa ss")
	assert.NotContains(t, got, "ss@db", "no fragment of the password may stay")
	// Escaped forms are masked too.
	assert.NotContains(t, redact.Text("postgres://app:pa%20ss@db/x", "pa ss"), "pa%20ss")
	assert.Equal(t, "abc", redact.Text("abc", ""), "an empty secret masks nothing")
}

func TestRedactErrorKeepsChain(t *testing.T) {
	base := &fs.PathError{Op: "dial", Path: "postgres://u:pw1234@h/db", Err: fs.ErrNotExist}
	err := redact.Error(base)
	assert.NotContains(t, err.Error(), "pw1234")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	assert.ErrorAs(t, err, &pe)
	assert.Nil(t, redact.Error(nil))
	assert.Same(t, err, redact.Error(err), "redacting twice wraps once")
	assert.NotContains(t, redact.Error(errors.New("x secretvalue y"), "secretvalue").Error(), "secretvalue")
}

type secretHolder struct{ password string }

func (s *secretHolder) Error() string { return "connect failed" }

func TestScrubbedKeepsOnlyWhatItIsGiven(t *testing.T) {
	holder := &secretHolder{password: "hunter22"}
	err := redact.Scrubbed("connect failed", fs.ErrNotExist)
	assert.Equal(t, "connect failed", err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var h *secretHolder
	assert.False(t, errors.As(err, &h), "the secret holder is not in the chain")
	_ = holder
}

// A URL that ends a clause keeps its punctuation out of the query.
func TestURLBeforePunctuation(t *testing.T) {
	for _, in := range []string{
		"redial ws://h/x?room=xxxxx&token=xxxxx: gave up",
		"redial wss://h/events: gave up",
		"dialing (ws://h/x?token=xxxxx), then",
	} {
		assert.Equal(t, in, redact.Text(in))
	}
}
