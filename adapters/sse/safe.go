package sse

import (
	"errors"

	"github.com/redial-go/redial/internal/redact"
)

// safe returns err with the newest attempt's secrets masked in its text,
// and a chain that keeps only what holds no secret: a ResponseError
// (whose Content-Type is masked already), this package's sentinels,
// network and context errors. It is the first step of the supervisor's
// Classify, so what a server echoes of a token reaches no Status, log
// line, probe body or returned error. An error whose text holds nothing to
// mask is returned as it is: the connector builds its errors from safe
// parts only.
func (c *connector) safe(err error) error { return safeWith(c.secrets(), err) }

// safeWith is safe with the redactor tg.
func safeWith(tg redact.Target, err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if tg.Text(text) == text {
		return err
	}
	keep := redact.SafeChain(err)
	var re *ResponseError
	if errors.As(err, &re) {
		keep = append(keep, re)
	}
	for _, s := range []error{ErrIdleTimeout, ErrEventTooLarge} {
		if errors.Is(err, s) {
			keep = append(keep, s)
		}
	}
	return tg.Error(err, keep...)
}
