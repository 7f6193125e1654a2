package httpcore

import "strings"

// net/http refuses to send a request whose header names or values break
// its rule (golang.org/x/net/http/httpguts, ValidHeaderFieldName and
// ValidHeaderFieldValue, after RFC 7230 section 3.2): written out here
// rather than taking that module for two loops.

// refusedInValue says what ValidHeaderValue refuses, for errors.
const refusedInValue = "a control character other than tab, which net/http refuses in a header value"

// ValidHeaderValue reports whether net/http sends v as a header value:
// no control character (below 0x20, or DEL) but tab.
func ValidHeaderValue(v string) bool {
	for i := range len(v) {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

func invalidHeaderValue(v string) bool { return !ValidHeaderValue(v) }

// validHeaderName reports whether net/http sends k as a header name: a
// non-empty token (RFC 7230 tchar).
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := range len(k) {
		b := k[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case b < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}
