package main

import (
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/internal/release"
)

func TestPick(t *testing.T) {
	for _, tc := range []struct {
		list    string
		want    []string
		wantErr string
	}{
		{list: "", want: []string{"windows-x86_64", "windows-aarch64", "macos-x86_64", "macos-aarch64", "linux-x86_64", "linux-aarch64"}},
		{list: "linux-x86_64", want: []string{"linux-x86_64"}},
		{list: "macos-aarch64, linux-aarch64", want: []string{"macos-aarch64", "linux-aarch64"}},
		{list: "linux-amd64", wantErr: `unknown target "linux-amd64": want one of windows-x86_64, windows-aarch64, macos-x86_64, macos-aarch64, linux-x86_64, linux-aarch64`},
		{list: "linux-x86_64,", wantErr: `unknown target ""`},
	} {
		got, err := pick(tc.list)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("pick(%q) = %v, %v; want error %q", tc.list, got, err, tc.wantErr)
			}
			continue
		}
		var names []string
		for _, tg := range got {
			names = append(names, tg.Name())
		}
		if err != nil || strings.Join(names, " ") != strings.Join(tc.want, " ") {
			t.Errorf("pick(%q) = %v, %v; want %v", tc.list, names, err, tc.want)
		}
	}
	if len(release.Targets) != 6 {
		t.Fatalf("%d targets", len(release.Targets))
	}
}
