// Package p is the API before a refactoring that changes no API.
package p

import (
	"context"
	"time"
)

// Cache is generic.
type Cache[K comparable, V any] struct {
	TTL time.Duration
	m   map[K]V
}

// Get looks a key up.
func (c *Cache[K, V]) Get(ctx context.Context, key K) (val V, ok bool) { return }

// Put stores a value.
func (c *Cache[K, V]) Put(key K, val V, ttl time.Duration) {}

// Copy copies.
func Copy(dst, src []byte) (n int, err error) { return }

// Apply applies f.
func Apply[T, U any](xs []T, f func(x T) U) []U { return nil }

// Loader loads.
type Loader interface {
	Load(ctx context.Context, name string) (data []byte, err error)
}

const Retries = 3
