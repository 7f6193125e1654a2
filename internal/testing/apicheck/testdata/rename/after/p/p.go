// Package p is the API after a refactoring that changes no API: parameters,
// results and a receiver's type parameters renamed, parameters and type
// parameters regrouped, imports renamed, declarations moved.
package p

import (
	stdctx "context"
	t "time"
)

const Retries = 3

// Loader loads.
type Loader interface {
	// Load has new parameter names.
	Load(c stdctx.Context, path string) ([]byte, error)
}

// Apply applies fn.
func Apply[T any, U any](items []T, fn func(T) U) []U { return nil }

// Copy copies.
func Copy(to []byte, from []byte) (int, error) { return 0, nil }

// Put stores a value.
func (cache *Cache[Key, Val]) Put(k Key, v Val, expiry t.Duration) {}

// Get looks a key up.
func (cache *Cache[A, B]) Get(_ stdctx.Context, k A) (B, bool) {
	var zero B
	return zero, false
}

// Cache is generic.
type Cache[K comparable, V any] struct {
	TTL t.Duration // unchanged
	m   map[K]V
}
