package bridge

import (
	"net"
	"testing"
)

// TestNetErrors: the OS's own "port taken" and "nothing listening" errors
// are recognised (Windows reports WSA codes that Go does not map).
func TestNetErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if _, err := net.Listen("tcp", addr); !isAddrInUse(err) {
		t.Errorf("second listen on %s: %v is not 'address in use'", addr, err)
	}
	ln.Close()
	if _, err := net.Dial("tcp", addr); !isConnRefused(err) {
		t.Errorf("dial of closed %s: %v is not 'connection refused'", addr, err)
	}
}
