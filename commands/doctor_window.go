package commands

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// ProbeFacts is what the plugin's probe action reports about its Studio
// (plugin/src/Actions/Probe.luau); windowChecks turns it into checks, so
// the wording and the fixes live here, in one place.
type ProbeFacts = actions.ProbeResult

// windowChecks probes one window's edit session and reads its checks.
func windowChecks(ctx context.Context, env *Env, conn bridge.Conn, in bridge.Instance, active bool) []Check {
	edit, ok := in.Get(protocol.ContextEdit)
	if !ok {
		edit = in.Sessions[0]
	}
	out := []Check{pluginVersionCheck(edit)}
	facts, perr := probe(ctx, env, conn, edit, active)
	if perr != nil {
		for _, c := range allNA(studioKeys, "could not probe this window: "+perr.Error()) {
			c.Fix = "run studio-bridge install-plugin, reopen the place, and run doctor again"
			out = append(out, c)
		}
	} else {
		if active && !facts.TestRunning && !in.Playing() {
			during, f, pp := playtestProbe(ctx, env, conn, in, edit, facts)
			out = append(out, pp.amend(readFacts(f, during, active))...)
		} else {
			out = append(out, readFacts(facts, in, active)...)
		}
		out = append(out, sourceMapCheck(ctx, env, conn, edit))
	}
	for i := range out {
		out[i].Window = in.ID
	}
	return out
}

// probe asks the edit session's plugin for its facts (the probe action).
func probe(ctx context.Context, env *Env, conn bridge.Conn, edit protocol.SessionInfo, active bool) (ProbeFacts, error) {
	var facts ProbeFacts
	if !edit.HasCapability(actions.Probe) {
		return facts, fmt.Errorf("the plugin (%s) has no probe action", orUnknown(edit.PluginVersion))
	}
	raw, _ := json.Marshal(actions.ProbeRequest{Active: active}) // a fixed shape: cannot fail
	res, err := conn.Call(ctx, edit.SessionID, actions.Probe, raw, bridge.CallOptions{Timeout: env.Timeout})
	if err != nil {
		return facts, err
	}
	if err := json.Unmarshal(res, &facts); err != nil {
		return facts, fmt.Errorf("the plugin answered an unexpected shape: %v", err)
	}
	return facts, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown version"
	}
	return "version " + s
}

func pluginVersionCheck(s protocol.SessionInfo) Check {
	c := Check{Key: "plugin.version", Status: StatusOK, Detail: "the connected plugin is " + orUnknown(s.PluginVersion)}
	if s.PluginVersion != PluginBuild.Version && PluginBuild.Version != "" {
		c.Status = StatusDegraded
		c.Detail = fmt.Sprintf("the connected plugin is %s; this binary installs %s (newer actions may be missing)", orUnknown(s.PluginVersion), PluginBuild.Version)
		c.Fix = "run studio-bridge install-plugin, then reopen the place in Studio"
	}
	return c
}

// readFacts is the per-window checks from one probe; in gives the host's
// view (which DataModels of the window have a session).
func readFacts(f ProbeFacts, in bridge.Instance, active bool) []Check {
	var out []Check
	add := func(key, status, detail, fix string) {
		out = append(out, Check{Key: key, Status: status, Detail: detail, Fix: fix})
	}

	switch {
	case !active:
		add("studio.streams", StatusOK, fmt.Sprintf("the plugin holds %d web stream(s) of Studio's 4 per process (shared with other plugins); --active opens one more to see whether others hold the rest", f.Streams), "")
	case f.Stream == "ok":
		add("studio.streams", StatusOK, fmt.Sprintf("the plugin holds %d web stream(s), and one more opened and closed", f.Streams), "")
	default:
		add("studio.streams", StatusDegraded, fmt.Sprintf("the plugin holds %d web stream(s), and one more could not open: %s. Other plugins (Rojo, …) hold the rest of Studio's 4; Play DataModels then reach the host through the edit DataModel's stream", f.Streams, f.Stream),
			"close other plugins' connections (e.g. stop a Rojo session) if playtests cannot connect")
	}

	switch f.Settings {
	case "ok":
		add("studio.settings", StatusOK, "plugin settings written read back", "")
	case "nil":
		add("studio.settings", StatusDegraded, "GetSetting gave nil for a setting just written: settings do not persist in this Studio. The port travels in the installed plugin, so connecting does not need them; the Bridge toggle and the settings panel's values hold in memory until Studio closes (the plugin says so once in Output)",
			"nothing to do; to use another port, run studio-bridge install-plugin --port <port> (the settings panel's port is not kept)")
	default:
		add("studio.settings", StatusDegraded, "plugin settings raised: "+f.SettingsError+". The plugin uses its defaults",
			"use the default port")
	}

	if f.PluginConnection {
		add("studio.pluginConnection", StatusOK, "PluginConnectionService exists: Play DataModels relay through the edit DataModel's stream", "")
	} else {
		add("studio.pluginConnection", StatusDegraded, "no PluginConnectionService in this Studio: each Play DataModel opens its own web stream (one each of Studio's 4)", "update Studio")
	}

	_, server := in.Get(protocol.ContextServer)
	_, client := in.Get(protocol.ContextClient)
	switch {
	case !in.Playing() && !f.TestRunning:
		add("studio.pluginsInTest", StatusNA, "no playtest now; run doctor during a playtest to see whether Studio loads user plugins in it", "")
	case server || client:
		add("studio.pluginsInTest", StatusOK, "the playtest's DataModels run the plugin", "")
	default:
		add("studio.pluginsInTest", StatusFailed, "Studio runs a playtest but none of its DataModels reports: Studio did not load user plugins in the test. play, exec --play and test --play cannot reach it",
			`turn on "Load User Plugins in Test Mode" in Studio's settings (File > Studio Settings), then start the playtest again`)
	}

	if f.Loadstring {
		add("studio.sourceLimit", StatusOK, "loadstring works in the edit DataModel: exec is not bound by Studio's 200,000-character Source limit there", "")
	} else {
		add("studio.sourceLimit", StatusDegraded, "no loadstring here: exec compiles through a ModuleScript, so a script over 200,000 characters (Studio's Source limit) is refused", "split very large scripts, or require them from modules")
	}

	switch {
	case !f.CaptureService:
		add("studio.capture", StatusDegraded, "no StudioCaptureService: screenshots go through CaptureService and an EditableImage (at most 1024×1024)", "update Studio")
	case f.CanCapture != nil && !*f.CanCapture && !f.Running:
		add("studio.capture", StatusDegraded, "StudioCaptureService:CanCaptureScreenshot() is false in the edit DataModel: screenshots go through CaptureService and an EditableImage", "")
	default:
		add("studio.capture", StatusOK, "StudioCaptureService is available", "")
	}

	switch f.Recording {
	case "ok":
		add("studio.recordingInPlay", StatusOK, "ChangeHistoryService records during this playtest", "")
	case "nil":
		add("studio.recordingInPlay", StatusDegraded, "TryBeginRecording returns nil during a playtest: changes made then are not undoable (exec reports undoable: false)", "")
	default:
		add("studio.recordingInPlay", StatusNA, "no playtest now; run doctor during a playtest to check recording", "")
	}

	rs := fmt.Sprintf("IsRunMode %t, IsRunning %t, IsEdit %t, IsServer %t, IsClient %t", f.RunMode, f.Running, f.Edit, f.Server, f.Client)
	if f.RunMode && !f.Client {
		add("studio.runService", StatusDegraded, rs+": in Run mode IsClient() is false here; the plugin decides Run mode by IsRunMode() and screenshots by CanCaptureScreenshot()", "")
	} else {
		add("studio.runService", StatusOK, rs, "")
	}

	switch {
	case f.HTTPEnabled == nil:
		add("studio.http", StatusNA, "HttpService.HttpEnabled is not readable here", "")
	case *f.HTTPEnabled:
		add("studio.http", StatusOK, "the game's HttpEnabled is on: scripts in a playtest may make HTTP requests (500 a minute)", "")
	default:
		add("studio.http", StatusDegraded, `the game's HttpEnabled is off: HTTP requests in a playtest's server (exec --play, your scripts) fail with "Http requests are not enabled. Enable via game settings"; the plugin's own connection does not need it (where it has a socket of its own it skips its HTTP check and connects directly)`,
			"turn on Allow HTTP Requests in Game Settings > Security if your scripts need HTTP")
	}
	return out
}
