package emulator_test

// Locations as files, end to end: `studio-bridge exec FILE` names the chunk
// after the file and returns the traceback of a runtime error raised two
// requires deep in the Rojo fixture project (testdata/rojo) synced into the
// place with --place-project.

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestExecFileErrorTraceback(t *testing.T) {
	const instance = "E2E-SOURCEMAP"
	port, _, b := startWindow(t, "--instance", instance, "--quiet", "--place-project", filepath.Join("testdata", "rojo", "default.project.json"))
	waitSessions(t, b, instance, protocol.ContextEdit)

	stdout, stderr, code := cliIn(t, filepath.Join(emulatorD, "testdata", "rojo"), port, "--json", "exec", "scripts/nested.luau")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a script error)\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	var res struct {
		Success   bool   `json:"success"`
		Error     string `json:"error"`
		Traceback string `json:"traceback"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if res.Success || res.Error != "ReplicatedStorage.Shared.Inner:5: attempt to index nil with 'field'" {
		t.Errorf("result %+v", res)
	}
	// every frame: the module that raised, the module that called it, the
	// script file itself (its chunk is named after the file)
	want := "ReplicatedStorage.Shared.Inner:5 function read\nReplicatedStorage.Shared.Outer:7 function run\nscripts/nested.luau:2\n"
	if res.Traceback != want {
		t.Errorf("traceback\n got %q\nwant %q", res.Traceback, want)
	}
}
