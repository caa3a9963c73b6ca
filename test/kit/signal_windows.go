package kit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// askToExit asks the process to shut down cleanly as Ctrl-Break in its
// console would (Start puts every process in a group of its own, which is
// what makes that possible); Go programs receive it as os.Interrupt.
func askToExit(p *os.Process) error { return interrupt(p) }

// terminate sends Ctrl-Break, Windows' request to shut down (it has no
// SIGTERM). A test process without a console cannot send it: the test is
// then skipped, saying so.
func terminate(tb testing.TB, p *os.Process) error {
	tb.Helper()
	if err := interrupt(p); err != nil {
		tb.Skipf("%v", err)
	}
	return nil
}

// alive reports whether the process pid (not necessarily a child) exists
// and has not exited.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

// setInterruptible starts the child in a process group of its own, whose id
// is its pid: GenerateConsoleCtrlEvent can target only a group, and group 0
// would be every process on the console, the test itself included.
func setInterruptible(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// interrupt sends CTRL_BREAK_EVENT to the child's process group (CTRL_C
// is disabled in a new group); Go's runtime (ctrlHandler in
// runtime/os_windows.go) turns it into SIGINT, which is os.Interrupt.
func interrupt(p *os.Process) error {
	if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid)); err != nil {
		return fmt.Errorf("kit: send Ctrl-Break to process group %d: %w (the test process must share a console with the child: run go test in a console window; a CI runner without one cannot interrupt a child)", p.Pid, err)
	}
	return nil
}

// suspendThread is kernel32's SuspendThread, which x/sys/windows lacks.
var suspendThread = windows.NewLazySystemDLL("kernel32.dll").NewProc("SuspendThread")

// suspend suspends every thread of pid. A thread may start while the
// snapshot is walked, so it walks again until a pass finds no thread it has
// not suspended yet.
func suspend(pid int) error {
	done := map[uint32]bool{}
	for pass := 0; pass < 10; pass++ {
		fresh := 0
		err := eachThread(pid, func(tid uint32) error {
			if done[tid] {
				return nil
			}
			h, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, tid)
			if err != nil {
				return fmt.Errorf("open thread %d: %w", tid, err)
			}
			defer windows.CloseHandle(h)
			if r, _, err := suspendThread.Call(uintptr(h)); uint32(r) == 0xFFFFFFFF { // (DWORD)-1
				return fmt.Errorf("SuspendThread %d: %w", tid, err)
			}
			done[tid], fresh = true, fresh+1
			return nil
		})
		if err != nil {
			return err
		}
		if fresh == 0 {
			if len(done) == 0 {
				return errors.New("the process has no threads (has it exited?)")
			}
			return nil
		}
	}
	return errors.New("threads kept starting while the process was being suspended")
}

// resume resumes every thread of pid once, undoing suspend.
func resume(pid int) error {
	return eachThread(pid, func(tid uint32) error {
		h, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, tid)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", tid, err)
		}
		defer windows.CloseHandle(h)
		if _, err := windows.ResumeThread(h); err != nil {
			return fmt.Errorf("ResumeThread %d: %w", tid, err)
		}
		return nil
	})
}

// eachThread calls f with the id of each thread that process pid has now
// (a Toolhelp snapshot of all threads, filtered by owner).
func eachThread(pid int, f func(tid uint32) error) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != uint32(pid) {
			continue
		}
		if err := f(entry.ThreadID); err != nil {
			return err
		}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("walk thread snapshot: %w", err)
	}
	return nil
}
