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

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		address string
		o       tcp.Options
		want    string
	}{
		{"", tcp.Options{}, "tcp: address: empty"},
		{"localhost", tcp.Options{}, `tcp: address "localhost": missing port in address`},
		{"h:1:2", tcp.Options{}, `tcp: address "h:1:2": too many colons in address`},
		{"h:1", tcp.Options{UserTimeout: -time.Second}, "tcp: UserTimeout -1s: negative"},
		{"h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -time.Second}}, "tcp: KeepAlive.Idle -1s: negative"},
		{"h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Interval: -1}}, "tcp: KeepAlive.Interval -1ns: negative"},
		{"h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true, Count: -1}}, "tcp: KeepAlive.Count -1: negative"},
		{"h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: time.Second}}, "tcp: KeepAlive: Idle, Interval or Count set without Enable"},
		{"h:1", tcp.Options{KeepAlive: net.KeepAliveConfig{Enable: true}, DisableKeepAlive: true}, "tcp: KeepAlive: set while DisableKeepAlive is true"},
		{"h:1", tcp.Options{Supervisor: supervisor.Options[net.Conn]{ConnectTimeout: -time.Second}}, "tcp: Supervisor.ConnectTimeout -1s: negative"},
		{"h:1", tcp.Options{Supervisor: supervisor.Options[net.Conn]{MaxAttempts: -1}}, "tcp: Supervisor.MaxAttempts -1: negative"},
	} {
		s, err := tcp.New(tc.address, tc.o)
		assert.EqualError(t, err, tc.want)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions, tc.want)
		assert.Nil(t, s)
	}
	for _, ok := range []tcp.Options{
		{},
		{DisableKeepAlive: true},
		{KeepAlive: net.KeepAliveConfig{Enable: true, Count: 1}},
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

	s, err = tcp.New("db.internal:5000", tcp.Options{Supervisor: supervisor.Options[net.Conn]{Name: "feed"}})
	require.NoError(t, err)
	assert.Equal(t, "feed", s.Name(), "the program's Name wins")
}
