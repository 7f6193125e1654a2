package comments

import (
	"bufio"
	"fmt"
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

// trimming are packages whose owners are cutting their comments on
// branches not merged yet, by owner: while the library as a whole is over
// budget, the rest of it must not be. An entry whose package is here and
// within budget by itself fails the test: remove it.
var trimming = map[string]string{
	"adapters/sse": "e-sse",
}

type count struct{ comment, code int }

func (c count) ratio() float64 { return float64(c.comment) / float64(max(c.code, 1)) }

func (c *count) add(o count) { c.comment += o.comment; c.code += o.code }

// TestCommentRatio counts as the before-stop hook does: over the non-test
// .go files of backoff, supervisor, health, adapters and internal, but
// internal/e2e, internal/apicheck and testdata, a non-blank line that
// starts with //, /* or * is a comment, any other a code line.
func TestCommentRatio(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	pkgs := map[string]count{}
	for _, top := range []string{"backoff", "supervisor", "health", "adapters", "internal"} {
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

	var all, rest count
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		c := pkgs[name]
		all.add(c)
		mark := ""
		if owner, ok := trimming[name]; ok {
			mark = "  (trimming: " + owner + ")"
			assert.Greater(t, c.ratio(), budget, "%s is within budget: remove it from trimming", name)
		} else {
			rest.add(c)
		}
		t.Logf("%-32s %5d / %5d = %.2f%s", name, c.comment, c.code, c.ratio(), mark)
	}
	t.Logf("library: %.3f; without the packages being trimmed: %.3f (budget %.2f)", all.ratio(), rest.ratio(), budget)
	if all.ratio() <= budget {
		return
	}
	assert.LessOrEqual(t, rest.ratio(), budget, "the packages not being trimmed carry too many comments")
	t.Logf("over budget (%.3f) only because of %s: their owners are trimming them", all.ratio(), fmt.Sprint(slices.Sorted(maps.Keys(trimming))))
}

func countFile(path string) (count, error) {
	f, err := os.Open(path)
	if err != nil {
		return count{}, err
	}
	defer f.Close()
	var c count
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
