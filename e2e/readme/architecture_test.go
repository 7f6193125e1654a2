package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoPath is a backticked token that looks like a path of the repository:
// slash-separated names, a directory ending in "/", or a file with an
// extension the repository uses. `*` is a glob.
var (
	backticked = regexp.MustCompile("`([^`\\s]+)`")
	pathLike   = regexp.MustCompile(`^[A-Za-z0-9_.*-]+(/[A-Za-z0-9_.*-]+)*/?$`)
	fileLike   = regexp.MustCompile(`\.(go|md|txt|sh|mod|sum|json|svg|png)$`)
)

// mapPaths returns every repository path ARCHITECTURE.md names in backticks.
func mapPaths(text string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if pathLike.MatchString(p) && (strings.Contains(p, "/") || fileLike.MatchString(p)) {
			out = append(out, p)
		}
	}
	return out
}

func architecture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "ARCHITECTURE.md"))
	require.NoError(t, err)
	return string(data)
}

// TestArchitecturePathsExist: every path the map names exists (a glob
// matches at least one), a directory as a directory.
func TestArchitecturePathsExist(t *testing.T) {
	dir := root(t)
	paths := mapPaths(architecture(t))
	require.NotEmpty(t, paths, "ARCHITECTURE.md names no path")
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "/")))
		if strings.Contains(p, "*") {
			m, err := filepath.Glob(full)
			require.NoError(t, err, "ARCHITECTURE.md: bad glob `%s`", p)
			assert.NotEmpty(t, m, "ARCHITECTURE.md names `%s`, which matches nothing", p)
			continue
		}
		fi, err := os.Stat(full)
		if !assert.NoError(t, err, "ARCHITECTURE.md names `%s`, which does not exist", p) {
			continue
		}
		if strings.HasSuffix(p, "/") {
			assert.True(t, fi.IsDir(), "ARCHITECTURE.md names `%s` as a directory; it is a file", p)
		}
	}
}

// TestArchitectureMapsEverySupervisorFile: each non-test Go file of
// supervisor/ is a step of the state machine or a piece of its API, so a
// new one must be placed on the map, named `supervisor/<file>.go`.
func TestArchitectureMapsEverySupervisorFile(t *testing.T) {
	named := map[string]bool{}
	for _, p := range mapPaths(architecture(t)) {
		named[p] = true
	}
	files, err := filepath.Glob(filepath.Join(root(t), "supervisor", "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		assert.True(t, named["supervisor/"+name], "ARCHITECTURE.md does not place `supervisor/%s` on the map", name)
	}
}

// TestMapPaths pins what counts as a path: a Go identifier with a dot, a
// log key or an error text does not.
func TestMapPaths(t *testing.T) {
	text := "`supervisor/run.go`, `internal/policy/`, `adapters/*/classify.go`, `ARCHITECTURE.md`, " +
		"`redact.Set`, `retry:`, `<pkg>: <Field>`, `backoff.Permanent`, `Idle`"
	assert.Equal(t, []string{"supervisor/run.go", "internal/policy/", "adapters/*/classify.go", "ARCHITECTURE.md"}, mapPaths(text))
}
