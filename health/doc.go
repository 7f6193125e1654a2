// Package health describes the health of supervised connections.
//
// A Status is a snapshot of one connection: its State, since when, the
// failed attempts, the last error (redacted), when the next attempt is
// due. A Registry judges a program's Sources: Ready while every critical
// source is Connected, Live until one has Failed for good. Package
// healthhttp serves that judgement over HTTP; this package links none.
package health
