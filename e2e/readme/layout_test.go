package readme

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goImports returns, for every .go file under dir (testdata and nested
// modules skipped), its path relative to the root and its imports.
func goImports(t *testing.T, root, dir string, tests bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var imps []string
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			imps = append(imps, p)
		}
		out[filepath.ToSlash(rel)] = imps
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "no Go file under %s", dir)
	return out
}

// testingImportAllowed says whether a file under internal/ may import package
// testing: only the project's tooling, under internal/testing/, may.
func testingImportAllowed(rel string) bool {
	return strings.HasPrefix(rel, "internal/testing/")
}

// TestInternalHoldsTheLibraryOnly: no non-test file under internal/,
// outside the tooling root internal/testing/, imports package testing
// (DESIGN v4, "Layout").
func TestInternalHoldsTheLibraryOnly(t *testing.T) {
	var bad []string
	for rel, imps := range goImports(t, root(t), "internal", false) {
		for _, p := range imps {
			if p == "testing" && !testingImportAllowed(rel) {
				bad = append(bad, rel)
			}
		}
	}
	assert.Empty(t, bad, "library files under internal/ that import package testing: move them under internal/testing/")
	assert.False(t, testingImportAllowed("internal/httpcore/core.go"), "the rule must be able to fail")
}

// TestExamplesAreSelfContained: no example imports another directory of
// examples/, so that one copied out builds as it is.
func TestExamplesAreSelfContained(t *testing.T) {
	const prefix = "github.com/redial-go/redial/examples/"
	var bad []string
	for rel, imps := range goImports(t, root(t), "examples", true) {
		own := prefix + strings.SplitN(strings.TrimPrefix(rel, "examples/"), "/", 2)[0]
		for _, p := range imps {
			if strings.HasPrefix(p, prefix) && p != own && !strings.HasPrefix(p, own+"/") {
				bad = append(bad, rel+" imports "+p)
			}
		}
	}
	assert.Empty(t, bad, "examples that import another directory of examples/")
}
