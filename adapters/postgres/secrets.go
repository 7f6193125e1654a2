package postgres

import "github.com/redial-go/redial/internal/redact"

// masker masks the secrets it knows in a text: a supervisor's *redact.Set,
// or plain, the secrets SafeError found in the error itself.
type masker interface{ Text(string) string }

// plain masks each of its secrets, whatever its length, and what
// redact.Text guesses.
type plain []string

func (p plain) Text(s string) string { return redact.Text(s, p...) }
