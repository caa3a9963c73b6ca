package emulator_test

// One Ctrl+Z per exec: every exec in the edit DataModel is one
// ChangeHistoryService recording, so the emulator's `undo` (Ctrl+Z) reverts
// all it created, changed and destroyed, and `redo` (Ctrl+Y) brings it back
// — also for a script that errored half way.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// historyStep sends `undo` or `redo` to the emulator and returns what it
// answered: the step's name, or "nothing: <why>".
func historyStep(t *testing.T, studio *proc, op string) string {
	t.Helper()
	before := strings.Count(studio.Stdout.String(), "emulator: "+op+" ")
	studio.Send(t, op)
	var answer string
	kit.WaitFor(t, 10*time.Second, "the emulator to "+op, func() bool {
		out := studio.Stdout.String()
		if strings.Count(out, "emulator: "+op+" ") <= before {
			return false
		}
		i := strings.LastIndex(out, "emulator: "+op+" ")
		answer, _, _ = strings.Cut(out[i+len("emulator: "+op+" "):], "\n")
		return true
	})
	return answer
}

func TestExecIsOneUndoStep(t *testing.T) {
	port, studio, b, edit := editWindow(t, "E2E-UNDO")

	type result struct {
		Success  bool   `json:"success"`
		Error    string `json:"error"`
		Undoable *bool  `json:"undoable"`
	}
	execJSON := func(script string) (result, int) {
		t.Helper()
		stdout, stderr, code := cli(t, port, "--json", "exec", script)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		var r result
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
			t.Fatalf("exec %q: exit %d, stdout %q, stderr %q: %v", script, code, stdout, stderr, err)
		}
		return r, code
	}
	// what the edit DataModel looks like, one word per fact
	look := func() string {
		t.Helper()
		stdout, stderr, code := cli(t, port, "exec", `print(workspace:FindFirstChild("Made") ~= nil, workspace.SpawnLocation.Anchored, workspace:FindFirstChild("Empty") ~= nil, workspace:FindFirstChild("Tower", true).Parent.Name, workspace:FindFirstChild("Half") ~= nil)`)
		if code != 0 {
			t.Fatalf("look: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		return strings.TrimSpace(stdout)
	}
	const original = "false true true Workspace false"
	if got := look(); got != original {
		t.Fatalf("before: %q, want %q", got, original)
	}

	r, code := execJSON("-- build the thing\nlocal f = Instance.new(\"Folder\") f.Name = \"Made\" Instance.new(\"Part\", f) f.Parent = workspace\n" +
		"workspace.SpawnLocation.Anchored = false\nworkspace.Empty:Destroy()\nworkspace.Tower.Parent = f")
	if code != 0 || !r.Success || r.Undoable == nil || !*r.Undoable {
		t.Fatalf("exec: exit %d, %+v (undoable %v), want success and undoable", code, r, r.Undoable)
	}
	const changed = "true false false Made false"
	if got := look(); got != changed {
		t.Fatalf("after exec: %q, want %q", got, changed)
	}
	if got := historyStep(t, studio, "undo"); got != "-- build the thing" {
		t.Fatalf("undo answered %q, want the script's first line", got)
	}
	if got := look(); got != original {
		t.Fatalf("after one undo: %q, want %q", got, original)
	}
	if got := historyStep(t, studio, "redo"); got != "-- build the thing" {
		t.Fatalf("redo answered %q", got)
	}
	if got := look(); got != changed {
		t.Fatalf("after redo: %q, want %q", got, changed)
	}
	historyStep(t, studio, "undo")

	// a script that only reads leaves nothing to undo: no undoable at all
	if r, code := execJSON(`return workspace.SpawnLocation.Anchored`); code != 0 || !r.Success || r.Undoable != nil {
		t.Fatalf("read-only exec: exit %d, %+v (undoable %v), want success and no undoable", code, r, r.Undoable)
	}

	// a script that errors half way: what it did is still one undo step
	r, code = execJSON(`Instance.new("Folder", workspace).Name = "Half" error("boom")`)
	if code != 1 || r.Success || !strings.Contains(r.Error, "boom") || r.Undoable == nil || !*r.Undoable {
		t.Fatalf("erroring exec: exit %d, %+v", code, r)
	}
	if got := look(); got != "false true true Workspace true" {
		t.Fatalf("after the erroring exec: %q", got)
	}
	if got := historyStep(t, studio, "undo"); got != `Instance.new("Folder", workspace).Name = "Half" error("boom")` {
		t.Fatalf("undo answered %q", got)
	}
	if got := look(); got != original {
		t.Fatalf("after undoing the erroring exec: %q", got)
	}

	// history = false (internal work): runs, records nothing, says so
	var opted result
	mustCall(t, b, edit.SessionID, "exec", map[string]any{"script": `Instance.new("Folder", workspace).Name = "Half"`, "history": false}, &opted)
	if !opted.Success || opted.Undoable == nil || *opted.Undoable {
		t.Fatalf("history=false: %+v, want success and undoable false", opted)
	}
	if got := historyStep(t, studio, "undo"); got != "nothing: nothing to undo" {
		t.Fatalf("undo after a history=false exec answered %q", got)
	}
	wantCode(t, call(t, b, edit.SessionID, "exec", map[string]any{"script": "print(1)", "history": "no"}), protocol.CodeInvalidPayload)

	// a recording that cannot begin (the plugin has one open): the exec
	// still runs, and says it cannot be undone
	if _, code := execJSON(`task.delay(0.05, function() _G.held = game:GetService("ChangeHistoryService"):TryBeginRecording("held") end)`); code != 0 {
		t.Fatalf("opening a recording: exit %d", code)
	}
	kit.WaitFor(t, 10*time.Second, "the held recording", func() bool {
		stdout, _, _ := cli(t, port, "exec", `print(_G.held ~= nil)`)
		return strings.TrimSpace(stdout) == "true"
	})
	r, code = execJSON(`print("ran")`)
	if code != 0 || !r.Success || r.Undoable == nil || *r.Undoable {
		t.Fatalf("exec while a recording is open: exit %d, %+v, want success and undoable false", code, r)
	}
}
