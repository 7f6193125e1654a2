package amqp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// passed is a ctx whose deadline has passed while its timer has not fired
// yet (Err still nil), as the socket's deadline can beat ctx's.
type passed struct{ context.Context }

func (passed) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestEndedSaysWhyEvenBeforeTheTimerFired(t *testing.T) {
	assert.NoError(t, ended(context.Background()))
	assert.ErrorIs(t, ended(passed{context.Background()}), context.DeadlineExceeded)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stopping"))
	assert.EqualError(t, ended(ctx), "stopping")
}
