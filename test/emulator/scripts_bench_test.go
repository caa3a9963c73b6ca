package emulator_test

// Benchmarks of the script commands (issue 23, docs/performance.md §9):
// script grep over the generated large place (--large-place: 101,000
// instances, 5,000 scripts, 20 MB of source) against the same search done
// by hand through exec, and the script read + script edit round trip on a
// 200 KB script. They start their own emulator (about half a minute to
// build the large place) and do not run in the normal test pass:
//
//	go test -run '^$' -bench Script -benchtime 1x -v ./test/emulator/

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
	"github.com/studio-bridge/studio-bridge/test/benchutil"
	"github.com/studio-bridge/studio-bridge/test/kit"
	"github.com/studio-bridge/studio-bridge/test/kit/bridgekit"
)

// largePlace starts a host and an emulated window holding the large place,
// and returns a joined bridge and the edit session's id.
func largePlace(b *testing.B) (*bridge.Bridge, string) {
	b.Helper()
	port := kit.FreePort(b)
	kit.Serve(b, "serve", port, kit.Options{Dir: kit.EmulatorDir(), Combined: true})
	studio := kit.Start(b, "studio", kit.Options{Dir: kit.EmulatorDir(), Combined: true, Stdin: true}, "node",
		"bin/studio.mjs", "--port", strconv.Itoa(port), "--instance", "BENCH-LARGE", "--quiet", "--large-place")
	kit.WaitFor(b, 5*time.Minute, "the large place to load", func() bool {
		return strings.Contains(studio.Stdout.String(), "emulator: window ready")
	})
	br := bridgekit.Connect(b, bridge.Options{Port: port, Version: "0.0.0-bench"})
	id := waitSessions(b, br, "BENCH-LARGE", protocol.ContextEdit)[protocol.ContextEdit].SessionID
	return br, id
}

func benchCall(b *testing.B, br *bridge.Bridge, id, action string, payload, out any) time.Duration {
	b.Helper()
	raw, _ := json.Marshal(payload)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := br.Call(ctx, id, action, raw, bridge.CallOptions{Timeout: 10 * time.Minute})
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v", action, err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			b.Fatalf("%s: %v", action, err)
		}
	}
	return took
}

// BenchmarkScriptGrepLargePlace: scriptGrep for a literal that 500 of the
// 5,000 scripts hold, over the whole place, then the same search by hand in
// one exec (GetDescendants, Source, string.find), which never yields.
func BenchmarkScriptGrepLargePlace(b *testing.B) {
	br, id := largePlace(b)
	b.ResetTimer()
	for range b.N {
		var g actions.ScriptGrepResult
		took := benchCall(b, br, id, actions.ScriptGrep, actions.ScriptGrepRequest{Pattern: "BENCH_MARKER", Literal: true, MaxMatches: 5000, MaxPerScript: 1}, &g)
		if len(g.Matches) != 500 || g.NextCursor != "" {
			b.Fatalf("grep found %d matches (cursor %q), want 500", len(g.Matches), g.NextCursor)
		}
		b.ReportMetric(float64(took.Milliseconds()), "grep-ms")
		b.ReportMetric(float64(len(g.Matches))/took.Seconds(), "matches/s")
		b.ReportMetric(float64(g.Bytes)/took.Seconds()/1e6, "MB/s")
		b.ReportMetric(g.LongestSliceMs, "longest-slice-ms")
		b.ReportMetric(g.MedianSliceMs, "median-slice-ms")
		b.ReportMetric(float64(g.Slices), "slices")
		b.ReportMetric(float64(g.Instances), "instances")
		b.Logf("script grep: %d matches, %d scripts, %d bytes, %d instances in %v; %d slices, longest %.1f ms, median %.1f ms", len(g.Matches), g.Scripts, g.Bytes, g.Instances, took, g.Slices, g.LongestSliceMs, g.MedianSliceMs)

		byHand := `local out, n = {}, 0
for _, d in game:GetDescendants() do
	if d:IsA("LuaSourceContainer") then
		local ok, src = pcall(function() return d.Source end)
		if ok then
			n += #src
			local at = string.find(src, "BENCH_MARKER", 1, true)
			if at then
				local _, lines = string.gsub(string.sub(src, 1, at), "\n", "")
				table.insert(out, d:GetFullName() .. ":" .. (lines + 1))
			end
		end
	end
end
return #out, n`
		var ex struct {
			Success      bool   `json:"success"`
			Error        string `json:"error"`
			ReturnValues []any  `json:"returnValues"`
		}
		took = benchCall(b, br, id, "exec", map[string]any{"script": byHand}, &ex)
		if !ex.Success || len(ex.ReturnValues) != 2 || fmt.Sprint(ex.ReturnValues[0]) != "500" {
			b.Fatalf("exec grep: %+v", ex)
		}
		b.ReportMetric(float64(took.Milliseconds()), "exec-grep-ms")
		b.Logf("exec grep by hand: %v matches over %v bytes in %v, in one piece (no yield)", ex.ReturnValues[0], ex.ReturnValues[1], took)
	}
}

// BenchmarkScriptReadEditRoundTrip: scriptRead then scriptEdit (find and
// replace with expectHash) of a 200,000-byte script, 21 times; p50 and max
// of the pair.
func BenchmarkScriptReadEditRoundTrip(b *testing.B) {
	port := kit.FreePort(b)
	kit.Serve(b, "serve", port, kit.Options{Dir: kit.EmulatorDir(), Combined: true})
	kit.Studio(b, "studio", port, "--instance", "BENCH-RT", "--quiet")
	br := bridgekit.Connect(b, bridge.Options{Port: port, Version: "0.0.0-bench"})
	id := waitSessions(b, br, "BENCH-RT", protocol.ContextEdit)[protocol.ContextEdit].SessionID
	var ex struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	benchCall(b, br, id, "exec", map[string]any{"script": `local s = Instance.new("ModuleScript") s.Name = "Big" s.Parent = game:GetService("ServerScriptService")
game:GetService("ScriptEditorService"):UpdateSourceAsync(s, function() return "-- TOKEN_0\n" .. string.rep("local x = 1 -- filler line\n", 7600) end)`}, &ex)
	if !ex.Success {
		b.Fatalf("making the script: %s", ex.Error)
	}
	b.ResetTimer()
	for range b.N {
		var pairs []time.Duration
		for i := range 21 {
			var r actions.ScriptReadResult
			took := benchCall(b, br, id, actions.ScriptRead, actions.ScriptReadRequest{Path: "ServerScriptService.Big"}, &r)
			if r.Source == nil || len(*r.Source) < 200000 {
				b.Fatalf("read %d bytes", len(*r.Source))
			}
			find, replace := fmt.Sprintf("TOKEN_%d\n", i), fmt.Sprintf("TOKEN_%d\n", i+1)
			var e actions.ScriptEditResult
			took += benchCall(b, br, id, actions.ScriptEdit, actions.ScriptEditRequest{
				Edits:        []actions.ScriptEditOp{{Path: "ServerScriptService.Big", Find: &find, Replace: &replace}},
				ExpectHashes: map[string]string{"ServerScriptService.Big": r.Hash},
			}, &e)
			pairs = append(pairs, took)
		}
		b.ReportMetric(float64(benchutil.Percentile(pairs, 50).Microseconds())/1000, "read+edit-p50-ms")
		b.ReportMetric(float64(benchutil.Percentile(pairs, 100).Microseconds())/1000, "read+edit-max-ms")
	}
}
