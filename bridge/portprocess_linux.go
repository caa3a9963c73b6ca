package bridge

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// portHolder reads /proc/net/tcp{,6} for the socket listening on port, then
// /proc/*/fd for the process holding that socket's inode.
func processOnPort(port int) (Holder, bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		listeningInodes(table, port, inodes)
	}
	if len(inodes) == 0 {
		return Holder{}, false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return Holder{}, false
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue // another user's process, or gone
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				comm, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
				return Holder{PID: pid, Name: strings.TrimSpace(string(comm))}, true
			}
		}
	}
	return Holder{}, false
}

// listeningInodes adds the inodes of the sockets in a /proc/net/tcp table
// that listen (state 0A) on port.
func listeningInodes(table string, port int, into map[string]bool) {
	f, err := os.Open(table)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }() // read only
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" || !strings.HasSuffix(f[1], want) {
			continue
		}
		into[f[9]] = true
	}
}
