package supervisor_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestChainClassify(t *testing.T) {
	base := errors.New("401")
	adapter := func(err error) error { return backoff.Permanent(err) }
	program := func(err error) error { return fmt.Errorf("feed: %w", err) }
	c := supervisor.ChainClassify(adapter, nil, func(error) error { return nil }, program)
	got := c(base)
	assert.True(t, backoff.IsPermanent(got), "the program's step kept the adapter's class")
	assert.ErrorIs(t, got, base)
	assert.Equal(t, "feed: 401", got.Error())
	assert.NoError(t, c(nil))
}
