package bench

import "testing"

// These run in the normal test pass: cheap checks of the helpers the
// benchmarks rely on. Nothing here builds or starts a process.

func TestParseStatus(t *testing.T) {
	st := parseStatus([]byte("Name:\tstudio-bridge\nVmHWM:\t  104512 kB\nVmRSS:\t   98304 kB\nThreads:\t9\n"))
	if st["Name"] != "studio-bridge" || st["Threads"] != "9" {
		t.Fatalf("parsed %v", st)
	}
	rss, err := kB(st["VmRSS"])
	if err != nil || rss != 98304*1024 {
		t.Fatalf("VmRSS = %d, %v", rss, err)
	}
	if _, err := kB("12 MB"); err == nil {
		t.Fatal("accepted a unit other than kB")
	}
}
