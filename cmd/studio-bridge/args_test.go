package main

import (
	"io"
	"strings"
	"testing"
)

func TestInterspersed(t *testing.T) {
	app := newApp(IO{Out: io.Discard, Err: io.Discard}, new(error))
	tests := []struct{ in, want string }{
		{"sb call state --session X", "sb call --session X -- state"},
		{"sb --port 1 call state -s X {} --json", "sb --port 1 call -s X --json -- state {}"},
		{"sb call --context=server state", "sb call --context=server -- state"},
		{"sb call state -- --not-a-flag", "sb call -- state --not-a-flag"},
		{"sb sessions --json", "sb sessions --json"},
		{"sb call - --timeout 5s", "sb call --timeout 5s -- -"},
		{"sb bogus --x y", "sb bogus --x y"},
		{"sb --json", "sb --json"},
	}
	for _, tt := range tests {
		got := strings.Join(interspersed(app, strings.Fields(tt.in)), " ")
		if got != tt.want {
			t.Errorf("%q → %q, want %q", tt.in, got, tt.want)
		}
	}
}
