package cloud_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud"
)

// TestRealOpenCloud runs a task on the real Open Cloud when
// ROBLOX_API_KEY, ROBLOX_UNIVERSE_ID and ROBLOX_PLACE_ID are set (the key
// needs universe.place.luau-execution-session:read and :write). It also
// records what the reference leaves open: whether a running task's logs
// can be read before it ends.
func TestRealOpenCloud(t *testing.T) {
	key, u, p := os.Getenv("ROBLOX_API_KEY"), os.Getenv("ROBLOX_UNIVERSE_ID"), os.Getenv("ROBLOX_PLACE_ID")
	if key == "" || u == "" || p == "" {
		t.Skip("skipped: set ROBLOX_API_KEY, ROBLOX_UNIVERSE_ID and ROBLOX_PLACE_ID to run a task on the real Open Cloud")
	}
	universe, err1 := strconv.ParseInt(u, 10, 64)
	place, err2 := strconv.ParseInt(p, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("ROBLOX_UNIVERSE_ID %q / ROBLOX_PLACE_ID %q are not IDs", u, p)
	}
	c := cloud.New(os.Getenv("STUDIO_BRIDGE_OPEN_CLOUD_URL"), key)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	// The first line is printed ten seconds before the task ends: if it
	// arrives well before Run returns, logs are served while a task runs.
	script := `print("studio-bridge first") warn("studio-bridge warn") task.wait(10) print("studio-bridge last") return 1 + 1, "two"`
	var firstAt time.Time
	var got []string
	out, err := c.Run(ctx, cloud.Task{Script: script, UniverseID: universe, PlaceID: place, Timeout: time.Minute}, func(l cloud.Line) {
		if firstAt.IsZero() {
			firstAt = time.Now()
		}
		got = append(got, l.Type+" "+l.Message)
	})
	if err != nil {
		if strings.Contains(err.Error(), key) {
			t.Fatal("the API key is in an error")
		}
		t.Fatal(err)
	}
	ended := time.Now()
	if out.State != cloud.StateComplete || len(out.Results) != 2 || string(out.Results[0]) != "2" {
		t.Fatalf("outcome %+v", out)
	}
	joined := strings.Join(got, "|")
	for _, w := range []string{"OUTPUT studio-bridge first", "WARNING studio-bridge warn", "OUTPUT studio-bridge last"} {
		if !strings.Contains(joined, w) {
			t.Fatalf("lines %q lack %q", got, w)
		}
	}
	streamed := ended.Sub(firstAt) > 5*time.Second
	t.Logf("task %s; logs readable while the task runs: %v (first line %s before the end)", out.TaskPath, streamed, ended.Sub(firstAt).Round(time.Millisecond))
}

// TestRealUnpinnedVersion records what the reference leaves open for test
// --cloud: which version a task created without one runs (latest Saved or
// latest Published), and whether a task's script may set a ModuleScript's
// Source (spec files from disk in the cloud). It uploads the place file in
// STUDIO_BRIDGE_TEST_PLACE_FILE as a Saved version (the key then also needs
// universe-places:write), runs one unpinned and one pinned task, and logs
// what each reports. Skipped, saying why, without those variables.
func TestRealUnpinnedVersion(t *testing.T) {
	key, u, p, file := os.Getenv("ROBLOX_API_KEY"), os.Getenv("ROBLOX_UNIVERSE_ID"), os.Getenv("ROBLOX_PLACE_ID"), os.Getenv("STUDIO_BRIDGE_TEST_PLACE_FILE")
	if key == "" || u == "" || p == "" || file == "" {
		t.Skip("skipped: set ROBLOX_API_KEY, ROBLOX_UNIVERSE_ID, ROBLOX_PLACE_ID and STUDIO_BRIDGE_TEST_PLACE_FILE (a .rbxl to upload as a Saved version) to record which version an unpinned task runs")
	}
	universe, err1 := strconv.ParseInt(u, 10, 64)
	place, err2 := strconv.ParseInt(p, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("ROBLOX_UNIVERSE_ID %q / ROBLOX_PLACE_ID %q are not IDs", u, p)
	}
	c := cloud.New(os.Getenv("STUDIO_BRIDGE_OPEN_CLOUD_URL"), key)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	saved, err := c.UploadPlace(ctx, universe, place, file)
	if err != nil {
		t.Fatal(err)
	}
	script := `local m = Instance.new("ModuleScript")
local ok = pcall(function() m.Source = "return 1" end)
return game.PlaceVersion, ok`
	run := func(version int64) (int64, bool) {
		out, err := c.Run(ctx, cloud.Task{Script: script, UniverseID: universe, PlaceID: place, Version: version, Timeout: time.Minute}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.State != cloud.StateComplete || len(out.Results) != 2 {
			t.Fatalf("outcome %+v", out)
		}
		v, err := strconv.ParseInt(string(out.Results[0]), 10, 64)
		if err != nil {
			t.Fatalf("game.PlaceVersion answered %s", out.Results[0])
		}
		return v, string(out.Results[1]) == "true"
	}
	pinned, sourceOK := run(saved)
	if pinned != saved {
		t.Fatalf("a task pinned to version %d reports game.PlaceVersion %d", saved, pinned)
	}
	unpinned, _ := run(0)
	which := "not the version just saved: unpinned tasks run another version (the latest Published?)"
	if unpinned == saved {
		which = "the latest Saved version"
	}
	t.Logf("saved version %d; an unpinned task ran version %d: %s", saved, unpinned, which)
	t.Logf("a task may set ModuleScript.Source: %v", sourceOK)
}
