package main

import (
	"fmt"
	"os"
	"path/filepath"
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
	nextBench     = bench{e2eDir, "./anchors", "BenchmarkNext", []string{"-benchmem", "-count", "5"}}
	idleBench     = bench{rootDir, "./supervisor", "BenchmarkIdleSupervisors|BenchmarkIdleSupervisorsWithLogger", []string{"-benchtime", "1x", "-count", "3"}}
	idle100kBench = bench{rootDir, "./supervisor", "BenchmarkIdleSupervisors100k", []string{"-benchtime", "1x", "-count", "3"}}
	idleTCPBench  = bench{e2eDir, "./storm", "BenchmarkIdleTCPSupervisors", []string{"-benchtime", "1x", "-count", "3"}}
	stormBench    = bench{e2eDir, "./storm", "BenchmarkReconnectStorm", []string{"-benchtime", "1x", "-count", "3"}}
	connBench     = bench{rootDir, "./supervisor", "BenchmarkConn|BenchmarkDo", []string{"-benchmem", "-count", "3"}}
	pathsBench    = bench{e2eDir, "./bench", "BenchmarkWebSocketMessages|BenchmarkGorillaMessages|BenchmarkSSEEvents|BenchmarkTCPReads|BenchmarkRPCCalls|BenchmarkPostgresQueries|BenchmarkAMQPPublish|BenchmarkAMQPConsume", []string{"-benchmem", "-count", "10"}}
	wsMemBench    = bench{e2eDir, "./storm", "BenchmarkWebSocketMemory", []string{"-benchtime", "1x", "-timeout", "60m", "-storm.memn", "10000"}}
	// wsMemProfBench writes the rows' heap profiles, every allocation
	// sampled, which doubles the time: at 2,000 connections.
	wsMemProfBench = bench{e2eDir, "./storm", "BenchmarkWebSocketMemory", []string{"-benchtime", "1x", "-timeout", "60m", "-storm.memn", fmt.Sprint(wsMemProfN), "-storm.memprofile", wsMemProfile}}
)

// wsMemProfile is where BenchmarkWebSocketMemory writes its rows' heap
// profiles (the prefix of their file names), of wsMemProfN connections.
var (
	wsMemProfile = filepath.Join(os.TempDir(), "redial-wsmem-")
	wsMemProfN   = 2000
)

// wsStormBench is the WebSocket storm with n clients, the server away for
// down and then accepting rate handshakes a second.
func wsStormBench(n, rate int, down string) bench {
	return bench{e2eDir, "./storm", "BenchmarkWebSocketStorm", []string{"-benchtime", "1x", "-timeout", "60m",
		"-storm.n", fmt.Sprint(n), "-storm.rate", fmt.Sprint(rate), "-storm.down", down}}
}

// The WebSocket storms: the 500 ms outage at the N this machine holds
// (stormN, see the report), the 30 s outage at the same N, and the 500 ms
// outage at 10,000, where the machine's two cores decide.
var (
	stormN       = 2000
	wsStormShort = wsStormBench(stormN, stormN/10, "500ms")
	wsStormLong  = wsStormBench(stormN, stormN/10, "30s")
	wsStorm10k   = wsStormBench(10000, 1000, "500ms")
)

// benches is every benchmark the report runs.
var benches = []bench{nextBench, idleBench, idle100kBench, idleTCPBench, stormBench, connBench, pathsBench, wsMemBench, wsMemProfBench, wsStormShort, wsStormLong, wsStorm10k, massLossBench}

// herdDir and herdPkg are where the herd simulator runs.
const (
	herdDir = rootDir
	herdPkg = "./examples/herd"
)

// pattern is the -bench pattern: each name anchored.
func (b bench) pattern() string {
	names := strings.Split(b.name, "|")
	for i, n := range names {
		names[i] = "^" + n + "$"
	}
	return strings.Join(names, "|")
}

// run runs the benchmark and returns go test's output. Flags that are the
// package's own (-storm.*) go after the package.
func (b bench) run() (string, error) {
	args := []string{"test", "-run", "^$", "-bench", b.pattern()}
	var own []string
	for i := 0; i < len(b.flags); i++ {
		if strings.HasPrefix(b.flags[i], "-storm.") {
			own = append(own, b.flags[i], b.flags[i+1])
			i++
			continue
		}
		args = append(args, b.flags[i])
	}
	args = append(append(args, b.pkg), own...)
	return goCmd(b.dir, args...)
}

// String is the command line, quoted for a shell, and where it runs.
func (b bench) String() string {
	return fmt.Sprintf("`go test -run '^$' -bench '%s' %s %s` %s", b.pattern(), strings.Join(b.flags, " "), b.pkg, where(b.dir))
}

// where says in words where a command runs.
func where(dir string) string {
	if dir == rootDir {
		return "at the repository root"
	}
	return "in `e2e`"
}
