package footprint

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zips returns the module zips that `go mod tidy` fetched for a consumer
// importing pkg, into a fresh module cache.
func zips(t *testing.T, pkg string) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(root, "go.mod"))
	dir, cache := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/consumer\n\ngo 1.26\n\nrequire github.com/redial-go/redial v0.0.0\n\nreplace github.com/redial-go/redial => "+root+"\n")
	write("main.go", "package main\n\nimport _ \"github.com/redial-go/redial/"+pkg+"\"\n\nfunc main() {}\n")
	goBin, err := exec.LookPath("go") // the go that runs this test, as a consumer's would be
	require.NoError(t, err)
	cmd := exec.Command(goBin, "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMODCACHE="+cache, "GOFLAGS=-modcacherw", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go mod tidy:\n%s", out)
	var got []string
	download := filepath.Join(cache, "cache", "download")
	require.NoError(t, filepath.WalkDir(download, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".zip") {
			rel, _ := filepath.Rel(download, path)
			got = append(got, rel)
		}
		return err
	}))
	slices.Sort(got)
	return got
}

func TestTidyFootprint(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads modules from the proxy")
	}
	for _, tc := range []struct {
		pkg string
		max int
	}{
		{"backoff", 3},
		{"redialtest", 3},
		{"supervisor", 3},
		{"health", 3},
		{"adapters/websocket", 5},
		{"adapters/tcp", 5},
	} {
		t.Run(strings.ReplaceAll(tc.pkg, "/", "_"), func(t *testing.T) {
			got := zips(t, tc.pkg)
			t.Logf("importing only %s: %d module zips: %s", tc.pkg, len(got), strings.Join(got, ", "))
			assert.LessOrEqual(t, len(got), tc.max, "go mod tidy fetched too much for a user of %s", tc.pkg)
		})
	}
}
