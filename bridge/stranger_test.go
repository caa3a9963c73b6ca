package bridge

import (
	"fmt"
	"net"
	"net/http"
	"testing"
)

func startStranger(t *testing.T, port int) *http.Server {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "<html>some other dev server</html>")
	})}
	go srv.Serve(ln)
	return srv
}
