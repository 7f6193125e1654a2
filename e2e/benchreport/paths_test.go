package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fromTest turns a path relative to e2e (where benchreport runs)
// into one relative to this package's directory (where its tests run).
func fromTest(dir string) string { return filepath.Join("..", dir) }

func TestDirs(t *testing.T) {
	assert.NoError(t, checkDirs(fromTest(e2eDir), fromTest(rootDir)))
	err := checkDirs(".", "..") // not e2e: no go.mod here
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "run it from e2e")
	}
	assert.Error(t, checkDirs(fromTest(rootDir), fromTest(rootDir)), "the root is not e2e")
	assert.Error(t, checkDirs(fromTest(e2eDir), fromTest(e2eDir)), "e2e is not the root")
}

// Every benchmark benchreport runs exists where it says, and so do the
// herd simulator and the files it rewrites.
func TestPathsExist(t *testing.T) {
	for _, b := range benches {
		t.Run(b.name, func(t *testing.T) {
			dir := filepath.Join(fromTest(b.dir), b.pkg)
			files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
			require.NoError(t, err)
			for _, name := range strings.Split(b.name, "|") {
				decl := regexp.MustCompile(`(?m)^func ` + name + `\(b \*testing\.B\)`)
				found := false
				for _, f := range files {
					src, err := os.ReadFile(f)
					require.NoError(t, err)
					found = found || decl.Match(src)
				}
				assert.True(t, found, "no func %s(b *testing.B) in %s", name, dir)
			}
		})
	}
	assert.FileExists(t, filepath.Join(fromTest(herdDir), herdPkg, "main.go"))
	assert.FileExists(t, filepath.Join(fromTest(rootDir), "BENCHMARKS.md"))
	readme, err := os.ReadFile(filepath.Join(fromTest(rootDir), "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "<!-- herd:begin")
	assert.Contains(t, string(readme), "<!-- herd:end -->")
}

func TestBenchString(t *testing.T) {
	assert.Equal(t, "`go test -run '^$' -bench '^BenchmarkNext$' -benchmem -count 5 ./anchors` in `e2e`", nextBench.String())
	assert.Equal(t, "`go test -run '^$' -bench '^BenchmarkIdleSupervisors$|^BenchmarkIdleSupervisorsWithLogger$' -benchtime 1x -count 3 ./supervisor` at the repository root", idleBench.String())
	assert.True(t, strings.HasPrefix(stormBench.String(), "`go test -run '^$' -bench '^BenchmarkReconnectStorm$' "))
	assert.Equal(t, "^BenchmarkConn$|^BenchmarkDo$", connBench.pattern())
}
