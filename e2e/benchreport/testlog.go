package main

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"
)

// testLog is one line a test logged (t.Logf), from `go test -json`.
type testLog struct {
	pkg, test, text string
}

// logPrefix is t.Logf's "file.go:N: " after go test's indentation.
var logPrefix = regexp.MustCompile(`^\s+\S+\.go:\d+: (.*)$`)

// testLogs returns the lines tests logged in `go test -json` output.
func testLogs(out string) []testLog {
	var logs []testLog
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Action != "output" || ev.Test == "" {
			continue
		}
		if m := logPrefix.FindStringSubmatch(strings.TrimRight(ev.Output, "\n")); m != nil {
			logs = append(logs, testLog{pkg: ev.Package, test: ev.Test, text: m[1]})
		}
	}
	return logs
}

// testOutput returns the text of `go test -json` output, for an error.
func testOutput(out string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct{ Action, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Action == "output" {
			b.WriteString(ev.Output)
		}
	}
	return b.String()
}

// matches returns the submatches of re in the lines logged by the tests
// of package pkg (its path's last elements) whose name starts with test.
func matches(logs []testLog, pkg, test string, re *regexp.Regexp) [][]string {
	var ms [][]string
	for _, l := range logs {
		if !strings.HasSuffix(l.pkg, "/"+pkg) || !strings.HasPrefix(l.test, test) {
			continue
		}
		if m := re.FindStringSubmatch(l.text); m != nil {
			ms = append(ms, m)
		}
	}
	return ms
}
