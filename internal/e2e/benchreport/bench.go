package main

import (
	"fmt"
	"strings"
)

// bench is one benchmark benchreport runs: in which module, which
// package, which function, with which flags. Its String is the command
// line BENCHMARKS.md shows, so the report says what was run.
type bench struct {
	dir   string // e2eDir or rootDir
	pkg   string // relative to dir
	name  string // the benchmark function
	flags []string
}

var (
	nextBench    = bench{e2eDir, "./anchors", "BenchmarkNext", []string{"-benchmem", "-count", "5"}}
	idleBench    = bench{rootDir, "./supervisor", "BenchmarkIdleSupervisors", []string{"-benchtime", "1x", "-count", "3"}}
	idleTCPBench = bench{e2eDir, "./storm", "BenchmarkIdleTCPSupervisors", []string{"-benchtime", "1x", "-count", "3"}}
	stormBench   = bench{e2eDir, "./storm", "BenchmarkReconnectStorm", []string{"-benchtime", "1x", "-count", "3"}}
)

// benches is every benchmark the report runs.
var benches = []bench{nextBench, idleBench, idleTCPBench, stormBench}

// herdDir and herdPkg are where the herd simulator runs.
const (
	herdDir = rootDir
	herdPkg = "./examples/herd"
)

// run runs the benchmark and returns go test's output.
func (b bench) run() (string, error) {
	args := append([]string{"test", "-run", "^$", "-bench", "^" + b.name + "$"}, b.flags...)
	return goCmd(b.dir, append(args, b.pkg)...)
}

// String is the command line, quoted for a shell, and where it runs.
func (b bench) String() string {
	return fmt.Sprintf("`go test -run '^$' -bench '^%s$' %s %s` %s", b.name, strings.Join(b.flags, " "), b.pkg, where(b.dir))
}

// where says in words where a command runs.
func where(dir string) string {
	if dir == rootDir {
		return "at the repository root"
	}
	return "in `internal/e2e`"
}
