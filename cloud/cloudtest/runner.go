package cloudtest

import "encoding/json"

// RunnerAnswer is what studio-bridge's test runner (the Luau that `test
// --cloud` sends as one task) returns from a place whose TestEZ ran two specs
// under root: "math › adds" passed and "math › fails" failed at line 7 with
// message. The stand-in runs no Luau, so a test gives this as the task's
// Outcome.Results. The failure names the spec's mounted clone, as TestEZ
// does; the runner's names map it back to root.math.spec.
func RunnerAnswer(root, message string) string {
	spec, mounted := root+".math.spec", root+".StudioBridgeTest.math.spec"
	b, err := json.Marshal(map[string]any{
		"tests": []map[string]any{
			{"name": "math › adds", "status": "passed", "file": spec},
			{"name": "math › fails", "status": "failed", "file": spec, "line": 7, "message": mounted + ":7: " + message},
		},
		"durationMs": 20,
		"names":      map[string]string{mounted: spec},
	})
	if err != nil {
		panic(err) // maps of strings and numbers always marshal
	}
	return string(b)
}
