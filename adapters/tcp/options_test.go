package tcp_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/supervisor"
)

// Options the harness's bad-option table does not reject are accepted.
func TestNewAcceptsGoodOptions(t *testing.T) {
	for _, ok := range []tcp.Options{
		{},
		{KeepAlive: net.KeepAliveConfig{Idle: -1}},
		{KeepAlive: net.KeepAliveConfig{Count: 1}},
		{KeepAlive: net.KeepAliveConfig{Enable: true, Count: 1}},
		{UserTimeout: 24 * time.Hour, KeepAlive: net.KeepAliveConfig{Idle: 9 * time.Hour, Interval: time.Hour, Count: 127}},
	} {
		_, err := tcp.New("[::1]:80", ok)
		assert.NoError(t, err, "%+v", ok)
	}
}

func TestDefaultNameIsTheAddress(t *testing.T) {
	s, err := tcp.New("db.internal:5000", tcp.Options{})
	require.NoError(t, err)
	assert.Equal(t, "db.internal:5000", s.Name())
	assert.Equal(t, "db.internal:5000", s.Status().Name)

	s, err = tcp.New("db.internal:5000", tcp.Options{Supervisor: supervisor.Settings{Name: "feed"}})
	require.NoError(t, err)
	assert.Equal(t, "feed", s.Name(), "the program's Name wins")
}
