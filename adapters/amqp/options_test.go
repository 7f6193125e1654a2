package amqp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/supervisor"
)

func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		url  string
		o    amqp.Options
		want string
	}{
		{"", amqp.Options{}, "amqp: url: empty (want amqp://user:password@host:5672/vhost)"},
		{"http://h/", amqp.Options{}, `amqp: url "http://h/": scheme "http" is not amqp or amqps`},
		{"amqp:///vhost", amqp.Options{}, `amqp: url "amqp:///vhost": no host`},
		{"amqp://u:s3cr3t@h/?heartbeat=0", amqp.Options{}, `amqp: url "amqp://xxxxx@h/?heartbeat=0": heartbeat in the query: set Options.Heartbeat instead`},
		{"amqp://u:s3cr3t@h:port/", amqp.Options{}, `amqp: url: malformed: invalid port ":port" after host (escape '?', '#', '/' and '@' in a password)`},
		{"amqp://u:s3cr3t@h/?channel_max=x", amqp.Options{}, `amqp: url "amqp://xxxxx@h/?channel_max=x": channel_max is not an uint16: strconv.ParseUint: parsing "x": invalid syntax`},
		{"amqp://h/", amqp.Options{Replicas: []string{"amqps://u:s3cr3t@b:x/"}}, `amqp: Replicas[0]: malformed: invalid port ":x" after host (escape '?', '#', '/' and '@' in a password)`},
		{"amqp://h/", amqp.Options{Heartbeat: -1}, "amqp: Heartbeat -1ns: negative"},
		{"amqp://h/", amqp.Options{Heartbeat: 1500 * 1e6}, "amqp: Heartbeat 1.5s: not a whole number of seconds (AMQP counts heartbeats in seconds)"},
		{"amqp://h/", amqp.Options{Heartbeat: 70000 * 1e9}, "amqp: Heartbeat 19h26m40s: longer than 18h12m15s"},
		{"amqp://h/", amqp.Options{Prefetch: -1}, "amqp: Prefetch -1: negative"},
		{"amqp://h/", amqp.Options{Prefetch: 70000}, "amqp: Prefetch 70000: more than 65535 (basic.qos counts in 16 bits)"},
		{"amqp://h/", amqp.Options{Supervisor: supervisor.Settings{MaxAttempts: -1}}, "amqp: Supervisor.MaxAttempts -1: negative"},
	} {
		_, err := amqp.New(tc.url, tc.o)
		require.ErrorIs(t, err, supervisor.ErrInvalidOptions, tc.want)
		assert.Equal(t, tc.want, err.Error())
		assert.NotContains(t, err.Error(), "s3cr3t")
	}
}

func TestDefaultName(t *testing.T) {
	c, err := amqp.New("amqps://app:s3cr3t@rabbit.example:5671/orders?server_name_indication=rabbit", amqp.Options{})
	require.NoError(t, err)
	assert.Equal(t, "amqps://xxxxx@rabbit.example:5671/orders?server_name_indication=rabbit", c.Name())
	assert.Equal(t, c.Name(), c.Status().Name)
}
