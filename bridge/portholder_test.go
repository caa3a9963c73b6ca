package bridge

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/studio-bridge/studio-bridge/test/kit"
)

func TestWhoHolds(t *testing.T) {
	t.Parallel()
	stranger := httptest.NewServer(http.NotFoundHandler())
	defer stranger.Close()
	_, strangerPort, _ := net.SplitHostPort(stranger.Listener.Addr().String())
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = silent.Close() }() // accepts into the backlog, never answers
	hostPort, _, _ := hostAndClient(t)

	port := func(s string) int { p, _ := strconv.Atoi(s); return p }
	for _, tc := range []struct {
		name string
		port int
		want HolderKind
	}{
		{"free", kit.FreePort(t), HolderNone},
		{"host", hostPort, HolderHost},
		{"http stranger", port(strangerPort), HolderStranger},
		{"silent stranger", silent.Addr().(*net.TCPAddr).Port, HolderStranger},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := WhoHolds(context.Background(), t.TempDir(), tc.port)
			if got.Kind != tc.want {
				t.Fatalf("WhoHolds = %+v; want %s", got, tc.want)
			}
			if tc.want == HolderHost && (got.Health.Version != "1.0.0" || got.Health.Port != tc.port) {
				t.Fatalf("host health = %+v; want version 1.0.0 on port %d", got.Health, tc.port)
			}
			if tc.want == HolderStranger && got.Detail == "" {
				t.Fatal("a stranger comes with what the probe saw")
			}
		})
	}
}
