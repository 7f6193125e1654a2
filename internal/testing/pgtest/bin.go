package pgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// BinEnv names an environment variable that overrides where the server
// binaries (initdb, pg_ctl, postgres) are looked up.
const BinEnv = "PGTEST_BIN"

// ErrNoBinaries is wrapped by the error returned when no PostgreSQL server
// binaries are installed. Tests fail on it; they never pass silently.
var ErrNoBinaries = errors.New("pgtest: no PostgreSQL server binaries (initdb, pg_ctl) found in /usr/lib/postgresql/*/bin" +
	" — install them with `apt-get install postgresql` (Debian/Ubuntu), or set " + BinEnv + " to their directory")

// binDir returns the directory of the newest installed server binaries.
func binDir() (string, error) {
	if d := os.Getenv(BinEnv); d != "" {
		if !hasServer(d) {
			return "", fmt.Errorf("%w (%s=%s has no initdb and pg_ctl)", ErrNoBinaries, BinEnv, d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasServer(d) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func hasServer(dir string) bool {
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// version reads the major version from /usr/lib/postgresql/VERSION/bin.
func version(dir string) int {
	v, _ := strconv.Atoi(strings.Split(filepath.Base(filepath.Dir(dir)), ".")[0])
	return v
}
