// Package health describes the health of supervised connections: a
// Status is a snapshot of one, a Registry judges a program's Sources
// (Ready while every critical one is Connected, Live until one Failed).
// Package healthhttp serves that over HTTP; this package links none.
package health
