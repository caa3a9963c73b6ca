package bridge

import "fmt"

// Holder is the process that holds a TCP port, as far as the OS tells.
type Holder struct {
	PID  int
	Name string // the executable's name; "" if unknown
}

func (h Holder) String() string {
	if h.Name == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d (%s)", h.PID, h.Name)
}

// ProcessOnPort finds the process listening on port, for errors that name who
// holds the bridge port (a failed host proof here, `doctor` there). It
// reports false when the OS does not say: on Linux it reads /proc (only
// processes whose file descriptors this user may read: another account's
// process stays unknown); elsewhere it does not look (macOS and Windows
// would need cgo or a helper program).
func ProcessOnPort(port string) (Holder, bool) {
	var p int
	if _, err := fmt.Sscanf(port, "%d", &p); err != nil || p <= 0 || p > 65535 {
		return Holder{}, false
	}
	return processOnPort(p)
}
