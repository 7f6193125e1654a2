package comments

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budget is the most comment lines per code line the library may carry.
const budget = 0.30

type count struct{ comment, code, files int }

func (c count) ratio() float64 { return float64(c.comment) / float64(max(c.code, 1)) }

func (c *count) add(o count) { c.comment += o.comment; c.code += o.code; c.files += o.files }

// TestCommentRatio counts as the before-stop hook does: over the non-test
// .go files of admit, backoff, supervisor, health, adapters, internal and
// redialtest, but e2e, internal/testing/apicheck and testdata, a non-blank line that
// starts with //, /* or * is a comment, any other a code line. The
// library and each of its packages must be within budget.
func TestCommentRatio(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	pkgs := map[string]count{}
	for _, top := range []string{"admit", "backoff", "supervisor", "health", "adapters", "internal", "redialtest"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if strings.Contains(rel, "/e2e") || strings.Contains(rel, "testdata") || strings.Contains(rel, "/apicheck") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
				return nil
			}
			c, err := countFile(path)
			p := pkgs[filepath.ToSlash(filepath.Dir(rel))]
			p.add(c)
			pkgs[filepath.ToSlash(filepath.Dir(rel))] = p
			return err
		})
		require.NoError(t, err)
	}
	require.NotEmpty(t, pkgs["supervisor"].code, "counted nothing: wrong root %s", root)

	var all count
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		c := pkgs[name]
		all.add(c)
		t.Logf("%-32s %5d / %5d = %.2f", name, c.comment, c.code, c.ratio())
		// A package of test files and a doc.go has only its package clause
		// to weigh the doc against.
		if c.code > c.files {
			assert.LessOrEqual(t, c.ratio(), budget, "%s carries too many comments", name)
		}
	}
	t.Logf("library: %.3f (budget %.2f)", all.ratio(), budget)
	assert.LessOrEqual(t, all.ratio(), budget, "the library carries too many comments")
}

func countFile(path string) (count, error) {
	f, err := os.Open(path)
	if err != nil {
		return count{}, err
	}
	defer f.Close()
	c := count{files: 1}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		switch t := strings.TrimSpace(sc.Text()); {
		case t == "":
		case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "/*"), strings.HasPrefix(t, "*"):
			c.comment++
		default:
			c.code++
		}
	}
	return c, sc.Err()
}
