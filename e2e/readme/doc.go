// Package readme tests what the README promises a newcomer in the first
// hour: its quick start compiles as written, imports included; its
// Examples table lists every example; its test command is what CI runs,
// and that script installs what is missing (as root or through sudo)
// without starting services; the herd command leaves no untracked file.
// ARCHITECTURE.md names only paths that exist, and places every non-test
// file of supervisor/ on its map.
package readme
