package footprint

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// size builds the program in testdata/name with a plain `go build` (the
// default flags, symbols and DWARF kept, as a user builds) and returns
// its size in bytes.
func size(t *testing.T, name string) int64 {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/"+name).CombinedOutput()
	require.NoError(t, err, "go build ./testdata/%s:\n%s", name, out)
	fi, err := os.Stat(bin)
	require.NoError(t, err)
	return fi.Size()
}

// TestBinarySize builds the smallest programs that supervise a TCP
// connection, with supervisor alone and with adapters/tcp, beside the same
// programs without redial (sizes in MiB). A program that only supervises
// stays within 5 MiB. adapters/tcp supports TLS, so crypto/tls is in every
// program that imports it (a plain TLS dialer is 6.6 MiB here, 3.3 without
// TLS): redial adds at most 1.5 MiB to that.
func TestBinarySize(t *testing.T) {
	const mib = 1 << 20
	dialer, tlsDialer := size(t, "dialer"), size(t, "tlsdialer")
	sup, tcp := size(t, "supervisor"), size(t, "tcp")
	t.Logf("MiB: net.Dialer %.2f, tls.Dialer %.2f; supervisor %.2f, adapters/tcp %.2f",
		float64(dialer)/mib, float64(tlsDialer)/mib, float64(sup)/mib, float64(tcp)/mib)
	assert.LessOrEqual(t, sup, int64(5*mib), "a program that only supervises")
	assert.LessOrEqual(t, tcp-tlsDialer, int64(1.5*mib), "what adapters/tcp adds to a TLS dialer")
}
