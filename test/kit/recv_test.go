package kit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fatalsTB records Fatalf instead of ending the test.
type fatalsTB struct {
	testing.TB
	fatals []string
}

func (f *fatalsTB) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

// TestRecv: a value that comes in time is returned; when none comes the test
// fails, naming what it waited for.
func TestRecv(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	tb := &fatalsTB{TB: t}
	if got := Recv(tb, ch, time.Second, "a seven"); got != 7 || len(tb.fatals) != 0 {
		t.Fatalf("Recv = %d with failures %q, want 7 and none", got, tb.fatals)
	}
	if got := Recv(tb, ch, 10*time.Millisecond, "an eight"); got != 0 || len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], "an eight") {
		t.Fatalf("Recv on an empty channel = %d with failures %q, want 0 and one naming what it waited for", got, tb.fatals)
	}
}
