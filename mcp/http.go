package mcp

import (
	"net"
	"net/http"
	"strings"

	"github.com/studio-bridge/studio-bridge/authtoken"
)

// EnvHTTPToken, when set, is the bearer token `mcp --http` requires (on
// loopback too); otherwise the MCP token file's (authtoken.ResolveMCP).
const EnvHTTPToken = authtoken.EnvMCPToken

// LoopbackHost reports whether the host part of an --http address binds
// loopback only: empty (studio-bridge then binds 127.0.0.1), "localhost",
// or a loopback IP literal. Any other name counts as beyond loopback, even
// one that happens to resolve to it: the check must not depend on DNS.
func LoopbackHost(host string) bool {
	if host == "" || strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// BearerAuth lets a request through only with "Authorization: Bearer
// <token>" (RFC 6750), compared in constant time; anything else is answered
// 401 with a WWW-Authenticate: Bearer challenge, before the MCP handler
// reads a byte of the body. The token is never logged.
func BearerAuth(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		presented, ok := bearer(r.Header.Get("Authorization"))
		if !ok || !authtoken.Equal(presented, token) {
			challenge := `Bearer realm="studio-bridge"`
			if ok {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "studio-bridge MCP server: send the MCP token (`studio-bridge token --mcp` prints it, or "+EnvHTTPToken+") as `Authorization: Bearer <token>`", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer extracts the credentials of a Bearer Authorization header (the
// scheme is case-insensitive).
func bearer(header string) (string, bool) {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	cred = strings.TrimSpace(cred)
	return cred, cred != ""
}

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
