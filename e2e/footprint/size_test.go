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
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/"+name)
	cmd.Env = append(os.Environ(), "GOFLAGS=") // not the test run's -race or -cover
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./testdata/%s:\n%s", name, out)
	fi, err := os.Stat(bin)
	require.NoError(t, err)
	return fi.Size()
}

// TestBinarySize builds the smallest programs that supervise a TCP
// connection, with supervisor alone, adapters/tcp and adapters/tcp/tcptls,
// beside the same programs without redial. A program that only supervises
// plain TCP stays within 5 MB (crypto/tls is in tcptls, apart for this);
// with TLS, redial adds at most 1.5 MiB to a plain TLS dialer.
func TestBinarySize(t *testing.T) {
	const mb, mib = 1000 * 1000, 1 << 20
	dialer, tlsDialer := size(t, "dialer"), size(t, "tlsdialer")
	sup, tcp, tcptls := size(t, "supervisor"), size(t, "tcp"), size(t, "tcptls")
	t.Logf("MB: net.Dialer %.2f, tls.Dialer %.2f; supervisor %.2f, adapters/tcp %.2f, adapters/tcp/tcptls %.2f",
		float64(dialer)/mb, float64(tlsDialer)/mb, float64(sup)/mb, float64(tcp)/mb, float64(tcptls)/mb)
	assert.LessOrEqual(t, sup, int64(5*mb), "a program that only supervises")
	assert.LessOrEqual(t, tcp, int64(5*mb), "a program with adapters/tcp")
	assert.LessOrEqual(t, tcptls-tlsDialer, int64(1.5*mib), "what adapters/tcp/tcptls adds to a TLS dialer")
}
