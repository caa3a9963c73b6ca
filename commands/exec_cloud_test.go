package commands

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/studio-bridge/studio-bridge/cloud"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// Each cloud failure carries the protocol code that picks its documented
// exit code, and keeps its own text and kind.
func TestCloudErrorCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind cloud.Kind
		code protocol.Code
	}{
		{cloud.KindAuth, protocol.CodeHostUnavailable},
		{cloud.KindNotFound, protocol.CodeHostUnavailable},
		{cloud.KindLocked, protocol.CodeHostUnavailable},
		{cloud.KindRateLimited, protocol.CodeHostUnavailable},
		{cloud.KindUnavailable, protocol.CodeHostUnavailable},
		{cloud.KindTaskFailed, protocol.CodeHostUnavailable},
		{cloud.KindUnknownOutcome, protocol.CodeUnknownOutcome},
		{cloud.KindTimeout, protocol.CodeTimeout},
		{cloud.KindRejected, ""},
	}
	for _, tc := range cases {
		in := &cloud.Error{Kind: tc.kind, Op: "create task", Message: "m"}
		err := cloudError(context.Background(), in)
		if protocol.CodeOf(err) != tc.code || cloud.KindOf(err) != tc.kind || err.Error() != in.Error() {
			t.Fatalf("kind %d: code %q, kind %d, text %q", tc.kind, protocol.CodeOf(err), cloud.KindOf(err), err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := cloudError(ctx, &cloud.Error{Kind: cloud.KindInterrupted, Err: context.Canceled, Message: "m"})
	if !errors.Is(err, context.Canceled) || protocol.CodeOf(err) != "" {
		t.Fatalf("an interruption became %v", err)
	}
}

// Everything checkCloud can refuse is a usage error, before any request.
func TestCheckCloudUsage(t *testing.T) {
	dir := kit.Files(t, map[string]string{"p.rbxl": "x", "e.rbxlx": "", "d.rbxl/": ""})
	place, empty, folder := filepath.Join(dir, "p.rbxl"), filepath.Join(dir, "e.rbxlx"), filepath.Join(dir, "d.rbxl")
	ok := map[string]string{EnvAPIKey: "k", EnvUniverseID: "1", EnvPlaceID: "2", EnvOpenCloudURL: ""}
	cases := []struct {
		name string
		env  map[string]string
		args ExecArgs
		says string // "" means accepted
	}{
		{name: "all set", env: ok, args: ExecArgs{Cloud: true}},
		{name: "flags over env", env: map[string]string{EnvAPIKey: "k"}, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{Universe: "5", Place: "6"}}},
		{name: "place file", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{PlaceFile: place}}},
		{name: "loopback http", env: map[string]string{EnvAPIKey: "k", EnvUniverseID: "1", EnvPlaceID: "2", EnvOpenCloudURL: "http://[::1]:8080"}, args: ExecArgs{Cloud: true}},
		{name: "no key", env: map[string]string{EnvUniverseID: "1", EnvPlaceID: "2"}, args: ExecArgs{Cloud: true}, says: EnvAPIKey},
		{name: "no universe", env: map[string]string{EnvAPIKey: "k", EnvPlaceID: "2"}, args: ExecArgs{Cloud: true}, says: "--universe"},
		{name: "zero place", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{Place: "0"}}, says: "not a place ID"},
		{name: "negative version", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{PlaceVersion: -1}}, says: "not a version"},
		{name: "missing place file", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{PlaceFile: filepath.Join(dir, "nope.rbxl")}}, says: "does not exist"},
		{name: "empty place file", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{PlaceFile: empty}}, says: "is empty"},
		{name: "a folder", env: ok, args: ExecArgs{Cloud: true, CloudPlace: CloudPlace{PlaceFile: folder}}, says: "is not a file"},
		{name: "script too big", env: ok, args: ExecArgs{Cloud: true, Script: strings.Repeat("x", cloud.MaxScriptBytes+1)}, says: "at most 4 MiB"},
		{name: "without --cloud", env: ok, args: ExecArgs{CloudPlace: CloudPlace{Place: "2"}}, says: "--place only applies with --cloud"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{EnvAPIKey, EnvUniverseID, EnvPlaceID, EnvOpenCloudURL} {
				t.Setenv(k, tc.env[k])
			}
			_, err := checkCloud(&Env{Log: slog.New(slog.DiscardHandler)}, &tc.args)
			if tc.says == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ue UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want a usage error saying %q", err, tc.says)
			}
		})
	}
}
