package websocket

import (
	"fmt"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/supervisor"
)

// New returns a Supervisor for the WebSocket at o.URL, ready to Run. Its
// Connector dials, watches with a ping heartbeat and classifies errors as
// Classify says. The defaults: ReadLimit 1 MiB, PingInterval 20s,
// PingTimeout 10s, CloseTimeout 1s, CloseHint 5s, WriteOnly false (the program reads, see
// Read); the supervisor's own (Backoff Decorrelated with Base 1s and Cap 1
// minute, StableAfter 30s, ConnectTimeout 20s, MaxAttempts 0, MaxHint 5
// minutes) and Name the redacted URL. Bad options are an error naming the
// field.
func New(o Options) (*supervisor.Supervisor[*websocket.Conn], error) {
	c, err := NewConnector(o)
	if err != nil {
		return nil, err
	}
	so := o.Supervisor
	if so.Name == "" {
		so.Name = c.URL()
	}
	so.Classify = supervisor.ChainClassify(c.Classify, so.Classify)
	s, err := supervisor.New[*websocket.Conn](c, so)
	if err != nil {
		return nil, fmt.Errorf("websocket: Supervisor: %w", err)
	}
	return s, nil
}
