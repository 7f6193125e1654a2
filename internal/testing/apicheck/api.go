package apicheck

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Generate lists the exported API of every public package of the module
// rooted at root (the directory holding its go.mod), one sorted line per
// item.
func Generate(root string) ([]string, error) {
	pkgs, err := load(root)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, p := range pkgs {
		lines = append(lines, list(p)...)
	}
	sort.Strings(lines)
	return slices.Compact(lines), nil
}

// Format renders lines as the contents of an API file: one per line, each
// ending with a newline.
func Format(lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Parse reads the lines of an API file, sorted, blank ones dropped.
func Parse(data []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return slices.Compact(lines)
}

// Diff compares two sorted listings: each line only in want comes back
// prefixed "-" (removed from the API), each line only in got "+" (added),
// in sorted order.
func Diff(want, got []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i] < got[j]:
			out = append(out, "-"+want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			out = append(out, "+"+got[j])
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// Check regenerates the listing of the module at root and compares it with
// the API file at apiFile, returning the differences as Diff does (nil
// when the file is up to date).
func Check(root, apiFile string) ([]string, error) {
	got, err := Generate(root)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(apiFile)
	if err != nil {
		return nil, err
	}
	return Diff(Parse(data), got), nil
}

// Update regenerates the listing of the module at root and writes it to
// apiFile.
func Update(root, apiFile string) error {
	got, err := Generate(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(apiFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(apiFile, Format(got), 0o644)
}
