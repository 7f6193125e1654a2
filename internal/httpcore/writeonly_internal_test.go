package httpcore

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// Close returns only after the WriteOnly reader ended, so no reader of a
// connection still runs when Run has returned: here the reader's read
// takes a second to fail once Close began.
func TestCloseWaitsForTheWriteOnlyReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		closing := make(chan struct{})
		var ended atomic.Bool
		l := &pinged{ping: func(context.Context, int) error { return nil }, reader: func() error {
			<-closing
			time.Sleep(time.Second)
			ended.Store(true)
			return net.ErrClosed
		}}
		_, cancel, done := runPinged(t, l)
		cancel()
		<-l.closes
		close(closing)
		<-done
		assert.True(t, ended.Load(), "Run returned before the WriteOnly reader ended")
	})
}
