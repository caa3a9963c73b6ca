package mcp

import (
	"net/http"
	"strings"
)

// CanonicalHost lowercases the request's Host before next sees it. Host
// names are case-insensitive (RFC 9110 4.2.3), but the SDK's DNS-rebinding
// check compares "localhost" case-sensitively and refused `Host:
// LOCALHOST:8765` with 403. Lowercasing keeps that check (and any other
// Host comparison after it) and makes it agree with the bridge host's own.
func CanonicalHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lower := strings.ToLower(r.Host); lower != r.Host {
			r = r.Clone(r.Context())
			r.Host = lower
		}
		next.ServeHTTP(w, r)
	})
}
