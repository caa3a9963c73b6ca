package kit

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

// Golden compares got with the golden file at path. With -update it
// rewrites the file first. The flag is the test package's own
// (flag.Bool("update", …)): kit cannot register it, since a package that
// already does would then fail to start.
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from its golden file (go test -update rewrites it if the change is intended):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
