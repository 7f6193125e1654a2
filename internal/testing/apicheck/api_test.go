package apicheck

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/redial.txt from the source instead of comparing")

// apiFile is the listing of the module, relative to its root.
const apiFile = "api/redial.txt"

// TestAPI fails when api/redial.txt does not match the exported API of
// the module's packages: an exported name was added, removed or changed.
func TestAPI(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, filepath.FromSlash(apiFile))
	if *update {
		if err := Update(root, file); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", file)
		return
	}
	if msg, err := compare(root, file); err != nil {
		t.Fatal(err)
	} else if msg != "" {
		t.Error(msg)
	}
}

// compare checks the listing of the module at root against file and
// returns what TestAPI reports: "" when they match.
func compare(root, file string) (string, error) {
	diff, err := Check(root, file)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("%s does not exist; create it with:\n\tgo test ./internal/testing/apicheck -update", apiFile), nil
	}
	if err != nil {
		return "", err
	}
	if len(diff) == 0 {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the exported API differs from %s (- removed, + added):\n\n", apiFile)
	for _, l := range diff {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if removed := strings.Count("\n"+strings.Join(diff, "\n"), "\n-"); removed > 0 {
		fmt.Fprintf(&b, "\n%d line(s) removed or changed: that breaks programs using them.\n", removed)
	}
	b.WriteString("\nIf the change is intended, accept it with:\n\tgo test ./internal/testing/apicheck -update\n")
	return b.String(), nil
}

// moduleRoot finds the directory of the go.mod enclosing the working
// directory (the package's directory under go test).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
