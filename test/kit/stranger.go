package kit

import (
	"net"
	"net/http"
	"strconv"
	"testing"
)

// ServeHTTP serves h on 127.0.0.1:port until the test ends: whatever else
// may hold the bridge's port, from another developer tool to a host of
// another protocol version.
func ServeHTTP(tb testing.TB, port int, h http.Handler) *http.Server {
	tb.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return srv
}

// Stranger serves a web page on port until the test ends: some other
// developer tool holding the bridge's port.
func Stranger(tb testing.TB, port int) *http.Server {
	tb.Helper()
	return ServeHTTP(tb, port, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>some other dev server</html>\n"))
	}))
}
