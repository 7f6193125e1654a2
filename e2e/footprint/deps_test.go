package footprint

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSupervisingLinksNoHTTP: a program that only supervises (backoff,
// supervisor, health, adapters/tcp) links no HTTP server code and no
// templates: the probes and the status page live in health/healthhttp.
func TestSupervisingLinksNoHTTP(t *testing.T) {
	for _, pkg := range []string{"backoff", "health", "supervisor", "adapters/tcp"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/redial-go/redial/"+pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s:\n%s", pkg, out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, "github.com/redial-go/redial/"+pkg)
		var bad []string
		for _, d := range deps {
			if d == "net/http" || strings.HasPrefix(d, "net/http/") || d == "html/template" || d == "text/template" {
				bad = append(bad, d)
			}
		}
		assert.Empty(t, bad, "%s links HTTP or template packages", pkg)
	}
}

// TestPlainTCPLinksNoCryptography: what supervises plain TCP imports no
// crypto package (crypto/tls's package initialisation alone is 1.3 MB);
// TLS is in adapters/tcp/tcptls.
func TestPlainTCPLinksNoCryptography(t *testing.T) {
	for _, pkg := range []string{"backoff", "health", "supervisor", "adapters/tcp"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/redial-go/redial/"+pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s:\n%s", pkg, out)
		var crypto []string
		for _, d := range strings.Fields(string(out)) {
			if d == "crypto" || strings.HasPrefix(d, "crypto/") {
				crypto = append(crypto, d)
			}
		}
		assert.Empty(t, crypto, "%s links cryptography", pkg)
	}
}

// TestRedialtestImportsOnlyTheStandardLibrary: the kit a program imports
// for its tests brings no module but redial (its own tests may).
func TestRedialtestImportsOnlyTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/redial-go/redial/redialtest").CombinedOutput()
	require.NoError(t, err, "go list -deps redialtest:\n%s", out)
	var bad []string
	for _, d := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(d, "/")
		if strings.Contains(first, ".") && !strings.HasPrefix(d, "github.com/redial-go/redial/") {
			bad = append(bad, d)
		}
	}
	assert.Empty(t, bad, "redialtest imports modules beyond the standard library")
}
