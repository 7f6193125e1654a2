package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// Options has every dial option, and New hands every one to the dialer.
func TestOptionsMirrorDial(t *testing.T) {
	testkit.AssertMirrors(t, Options.dialOptions)
}

// Do breaks the connection on what Call would invalidate it for, and only
// on that.
func TestBroken(t *testing.T) {
	var c connector
	for err, broken := range map[error]bool{
		io.EOF:             true,
		rpc2.ErrShutdown:   true,
		errors.New("boom"): true,
		fmt.Errorf("call: %w", rpc2.ServerError("no such job")): false,
		context.Canceled: false,
		fmt.Errorf("x: %w", context.DeadlineExceeded): false,
	} {
		assert.Equal(t, broken, c.Broken(err), "%v", err)
	}
}
