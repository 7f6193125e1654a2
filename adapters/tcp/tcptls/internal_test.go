package tcptls

import (
	"testing"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// Options has every dial option (tcp's, embedded), and New hands every one
// to the dialer.
func TestOptionsMirrorDial(t *testing.T) {
	testkit.AssertMirrors(t, dialOptions)
}
