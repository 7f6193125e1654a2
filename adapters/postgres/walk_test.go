package postgres_test

import (
	"reflect"
	"strings"
)

// holds reports whether any string reachable from v — through pointers,
// interfaces, structs (unexported fields included), slices, arrays and
// maps — contains secret: what a reflective logger or errors.As could
// dig out of an error.
func holds(v any, secret string) bool {
	seen := map[uintptr]bool{}
	var walk func(reflect.Value, int) bool
	walk = func(v reflect.Value, depth int) bool {
		if !v.IsValid() || depth > 64 {
			return false
		}
		switch v.Kind() {
		case reflect.String:
			return strings.Contains(v.String(), secret)
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return false
			}
			seen[v.Pointer()] = true
			return walk(v.Elem(), depth+1)
		case reflect.Interface:
			return walk(v.Elem(), depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				if walk(v.Field(i), depth+1) {
					return true
				}
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Len() > 0 && v.Type().Elem().Kind() == reflect.Uint8 {
				return strings.Contains(string(v.Bytes()), secret)
			}
			for i := range min(v.Len(), 1024) {
				if walk(v.Index(i), depth+1) {
					return true
				}
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				if walk(it.Key(), depth+1) || walk(it.Value(), depth+1) {
					return true
				}
			}
		}
		return false
	}
	return walk(reflect.ValueOf(v), 0)
}
