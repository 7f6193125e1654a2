package amqp

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The secrets of the last 16 BeforeConnect calls stay masked, and no more
// are kept: a rotating token does not grow the redactor without bound.
func TestHookedSecretsAreBounded(t *testing.T) {
	n := 0
	c, err := New("amqp://app:first-Secret@h/", Options{BeforeConnect: func(_ context.Context, u *url.URL) error {
		n++
		u.User = url.UserPassword("app", fmt.Sprintf("token-%03d-xyz", n))
		return nil
	}})
	require.NoError(t, err)
	for i := 0; i < 40; i++ {
		_, err := c.c.prepare(context.Background(), 0)
		require.NoError(t, err)
	}
	text := c.c.secrets.Text("first-Secret token-040-xyz token-025-xyz token-024-xyz")
	assert.Equal(t, "xxxxx xxxxx xxxxx token-024-xyz", text, "the url's and the last 16 calls' (25 to 40)")
	assert.False(t, strings.Contains(c.c.secrets.Text("token-040-xyz"), "040"))
}
