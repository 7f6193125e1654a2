package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -write replaces a section in place, from its heading to the next
// section's, and puts a section the file lacks before the first later one.
func TestWriteSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	idx := func(name string) int {
		for i, s := range sections {
			if s.name == name {
				return i
			}
		}
		t.Fatalf("no section %s", name)
		return -1
	}
	head := func(name string) string { return sections[idx(name)].heading }
	doc := "# Benchmarks\n\n" + head("herd") + "\n\nold herd\n\n" + head("overload") + "\n\nold overload\n\n" + head("replicas") + "\n\nreplicas\n"
	require.NoError(t, os.WriteFile(file, []byte(doc), 0o644))
	require.NoError(t, writeSection(file, idx("overload"), head("overload")+"\n\nnew overload\n\n"))
	require.NoError(t, writeSection(file, idx("admit"), head("admit")+"\n\nadmit\n\n"))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	want := strings.Join([]string{"# Benchmarks", head("herd"), "old herd", head("overload"), "new overload", head("admit"), "admit", head("replicas"), "replicas\n"}, "\n\n")
	assert.Equal(t, want, string(b))
}
