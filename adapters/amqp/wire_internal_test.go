package amqp

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A close-ok that meets a connection the broker has closed counts as
// sent, so that amqp091 reports the broker's reason; any other failed
// write is reported.
func TestCloseOKMeetingAResetIsSent(t *testing.T) {
	client, broker := net.Pipe()
	_ = broker.Close()
	w := &wire{Conn: client}
	n, err := w.Write(closeOK)
	assert.NoError(t, err)
	assert.Equal(t, len(closeOK), n)
	_, err = w.Write([]byte{8, 0, 0, 0, 0, 0, 0, 0xce}) // a heartbeat
	assert.Error(t, err)
}
