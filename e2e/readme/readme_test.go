package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the library's checkout: this module's go.mod replaces the
// library with .., and this package is one level below it.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, "README.md"))
	return dir
}

// section returns the README's text under heading, up to the next "## ".
func section(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(data), "\n"+heading+"\n")
	require.True(t, ok, "README.md has no %q", heading)
	text, _, _ := strings.Cut(rest, "\n## ")
	return text
}

// blocks returns the fenced code blocks of text in language lang.
func blocks(text, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestQuickStartBuilds vets and builds the README's quick start as it
// stands, imports included, as a package of this module (which requires
// coder/websocket and replaces the library with this checkout).
func TestQuickStartBuilds(t *testing.T) {
	code := blocks(section(t, "## Quick start"), "go")
	require.Len(t, code, 1, "the quick start is one Go block")
	require.True(t, strings.HasPrefix(code[0], "package main\n"), "the quick start is a whole program")
	src := filepath.Join(t.TempDir(), "main.go")
	require.NoError(t, os.WriteFile(src, []byte(code[0]), 0o644))
	// The package exists only in an overlay: nothing is written here.
	pkg, err := filepath.Abs(filepath.Join("testdata", "quickstart"))
	require.NoError(t, err)
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	require.NoError(t, os.WriteFile(overlay, []byte(`{"Replace":{"`+filepath.Join(pkg, "main.go")+`":"`+src+`"}}`), 0o644))
	for _, args := range [][]string{
		{"vet", "-overlay", overlay, "./testdata/quickstart"},
		{"build", "-overlay", overlay, "-o", filepath.Join(t.TempDir(), "quickstart"), "./testdata/quickstart"},
	} {
		out, err := exec.Command("go", args...).CombinedOutput()
		assert.NoError(t, err, "go %s of the README's quick start:\n%s\n%s", args[0], out, code[0])
	}
}

// TestExamplesTableListsEveryExample: every directory of examples/ is a
// row of the README's Examples table.
func TestExamplesTableListsEveryExample(t *testing.T) {
	table := section(t, "## Examples")
	entries, err := os.ReadDir(filepath.Join(root(t), "examples"))
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" {
			continue
		}
		n++
		assert.Contains(t, table, "| `go run ./examples/"+e.Name(), "the Examples table lacks examples/%s", e.Name())
	}
	assert.NotZero(t, n)
}

// TestTestCommandIsWhatCIRuns: the README's test command is ./test.sh,
// and .ci/run runs that.
func TestTestCommandIsWhatCIRuns(t *testing.T) {
	var commands []string
	for _, b := range blocks(section(t, "## Commands"), "sh") {
		commands = append(commands, strings.TrimSpace(b))
	}
	assert.Equal(t, []string{"go run ./examples/demo", "./test.sh"}, commands, "the README's two commands")
	ci, err := os.ReadFile(filepath.Join(root(t), ".ci", "run"))
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^exec \./test\.sh$`, string(ci))
}

// TestHerdLeavesNoUntrackedFile: the file that the README's herd command
// writes is ignored by git.
func TestHerdLeavesNoUntrackedFile(t *testing.T) {
	m := regexp.MustCompile("`go run ./examples/herd -svg (\\S+)`").FindStringSubmatch(section(t, "## Examples"))
	require.NotNil(t, m, "the Examples table runs herd with -svg")
	cmd := exec.Command("git", "check-ignore", "--no-index", "-q", m[1])
	cmd.Dir = root(t)
	assert.NoError(t, cmd.Run(), "git check-ignore %s: the herd command leaves an untracked file", m[1])
}
