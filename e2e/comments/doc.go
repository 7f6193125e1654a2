// Package comments holds the library to issue 21's comment budget: at
// most 0.30 comment lines per code line over its non-test Go files, in
// each package and in all.
package comments
