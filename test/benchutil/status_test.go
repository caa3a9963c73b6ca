package benchutil

import (
	"os"
	"runtime"
	"testing"
)

func TestParseStatus(t *testing.T) {
	st := ParseStatus([]byte("Name:\tstudio-bridge\nVmHWM:\t  104512 kB\nVmRSS:\t   98304 kB\nThreads:\t9\nBad:\t12 MB\n"))
	if st["Name"] != "studio-bridge" || st["Threads"] != "9" {
		t.Fatalf("parsed %v", st)
	}
	for _, tt := range []struct {
		field string
		want  int64
		ok    bool
	}{
		{"VmRSS", 98304 * 1024, true},
		{"VmHWM", 104512 * 1024, true},
		{"Bad", 0, false},     // a unit other than kB
		{"Threads", 0, false}, // no unit
		{"Missing", 0, false},
	} {
		got, err := st.Bytes(tt.field)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("Bytes(%s) = %d, %v; want %d (ok %v)", tt.field, got, err, tt.want, tt.ok)
		}
	}
}

// TestMemory reads this test process's own memory: a peak at least as
// large as the current size, both above zero.
func TestMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/status is Linux's")
	}
	rss, peak := Memory(t, os.Getpid())
	if rss <= 0 || peak < rss {
		t.Fatalf("RSS %.1f MiB, peak %.1f MiB", rss, peak)
	}
}
