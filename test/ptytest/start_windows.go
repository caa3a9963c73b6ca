package ptytest

// Windows has no pseudo-terminal file pair: a pseudo console (ConPTY) is a
// console host process fed and read through two pipes, and a program uses it
// only if CreateProcess starts it with PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE,
// which os/exec cannot pass. So startProcess does by hand what Microsoft's
// "Creating a Pseudoconsole session" describes (learn.microsoft.com,
// windows/console/creating-a-pseudoconsole-session).
//
// No Windows machine runs these tests here: this file is only
// compile-checked (GOOS=windows go vet ./...). Expect the first run on
// Windows to find what that cannot.

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// startProcess runs cmd in a new 120×40 pseudo console and returns the
// read end of its output pipe, the write end of its input pipe and the
// running program.
func startProcess(cmd *exec.Cmd) (out, keys *os.File, p process, err error) {
	c, err := startConPTY(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	return c.out, c.keys, c, nil
}

// conPTY is a program attached to a pseudo console.
type conPTY struct {
	console windows.Handle // the HPCON
	process windows.Handle
	out     *os.File // what the console host draws: VT sequences and text
	keys    *os.File // what the console host reads as typed keys
}

func startConPTY(cmd *exec.Cmd) (_ *conPTY, err error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	env, err := envBlock(cmd.Environ())
	if err != nil {
		return nil, err
	}
	app, err := windows.UTF16PtrFromString(cmd.Path)
	if err != nil {
		return nil, err
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmdLine, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(args))
	if err != nil {
		return nil, err
	}
	var dir *uint16
	if cmd.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(cmd.Dir); err != nil {
			return nil, err
		}
	}

	// Two synchronous pipes (the only kind a pseudo console takes): we
	// write keys into inW and the console host reads them from inR; it
	// draws into outW and we read outR.
	var inR, inW, outR, outW windows.Handle
	if err := windows.CreatePipe(&inR, &inW, nil, 0); err != nil {
		return nil, fmt.Errorf("input pipe: %w", err)
	}
	if err := windows.CreatePipe(&outR, &outW, nil, 0); err != nil {
		closeHandles(inR, inW)
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	c := &conPTY{out: os.NewFile(uintptr(outR), "conpty-output"), keys: os.NewFile(uintptr(inW), "conpty-input")}
	err = windows.CreatePseudoConsole(windows.Coord{X: 120, Y: 40}, inR, outW, 0, &c.console)
	// The console host holds its own copies of inR and outW now. Ours would
	// keep outR from reaching end of file when the host closes its copy.
	closeHandles(inR, outW)
	if err != nil {
		_ = c.out.Close()
		_ = c.keys.Close()
		return nil, fmt.Errorf("CreatePseudoConsole: %w", err)
	}
	defer func() {
		if err != nil {
			// With no reader on the output, ClosePseudoConsole can block
			// (before Windows 11 24H2) unless the output is closed first.
			_ = c.out.Close()
			windows.ClosePseudoConsole(c.console)
			_ = c.keys.Close()
		}
	}()

	attrs, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return nil, fmt.Errorf("attribute list: %w", err)
	}
	defer attrs.Delete()
	// The attribute's value is the HPCON itself, not its address (Microsoft's
	// sample passes hPC with sizeof(HPCON)). The handle is read as a pointer
	// rather than converted from uintptr, which go vet rightly distrusts.
	if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, *(*unsafe.Pointer)(unsafe.Pointer(&c.console)), unsafe.Sizeof(c.console)); err != nil {
		return nil, fmt.Errorf("pseudo console attribute: %w", err)
	}
	si := windows.StartupInfoEx{ProcThreadAttributeList: attrs.List()}
	si.Cb = uint32(unsafe.Sizeof(si))
	// STARTF_USESTDHANDLES with no handles: the child's standard handles are
	// then the pseudo console's. Without it a child of a process whose own
	// output is redirected (as `go test` redirects ours) can write there
	// instead (microsoft/terminal#11276; node-pty does the same, #334).
	si.Flags = windows.STARTF_USESTDHANDLES
	var pi windows.ProcessInformation
	const flags = windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_UNICODE_ENVIRONMENT
	if err := windows.CreateProcess(app, cmdLine, nil, nil, false, flags, &env[0], dir, &si.StartupInfo, &pi); err != nil {
		return nil, fmt.Errorf("CreateProcess: %w", err)
	}
	_ = windows.CloseHandle(pi.Thread)
	c.process = pi.Process
	return c, nil
}

// wait waits for the program and reads its exit code.
func (c *conPTY) wait() error {
	if _, err := windows.WaitForSingleObject(c.process, windows.INFINITE); err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(c.process, &code); err != nil {
		return fmt.Errorf("exit code: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("exit status %d", code)
	}
	return nil
}

func (c *conPTY) kill() error { return windows.TerminateProcess(c.process, 1) }

// release closes the pseudo console while the Screen's reader still drains
// its output: the host may draw a last frame, and before Windows 11 24H2
// ClosePseudoConsole waits until that is read. The host then exits, which
// closes its end of the output pipe, so the reader sees end of file.
func (c *conPTY) release() {
	windows.ClosePseudoConsole(c.console)
	_ = windows.CloseHandle(c.process)
}

// envBlock is env as CreateProcess takes it with CREATE_UNICODE_ENVIRONMENT:
// each "name=value" in UTF-16 ending in NUL, sorted by name regardless of
// case (as Windows documents the block), and one more NUL at the end.
func envBlock(env []string) ([]uint16, error) {
	env = slices.Clone(env)
	name := func(kv string) string {
		k, _, _ := strings.Cut(kv, "=")
		return strings.ToUpper(k)
	}
	slices.SortStableFunc(env, func(a, b string) int { return cmp.Compare(name(a), name(b)) })
	var block []uint16
	for _, kv := range env {
		u, err := windows.UTF16FromString(kv) // ends in NUL; fails on a NUL inside
		if err != nil {
			return nil, fmt.Errorf("environment variable %q: %w", name(kv), err)
		}
		block = append(block, u...)
	}
	if len(block) == 0 {
		block = append(block, 0)
	}
	return append(block, 0), nil
}

func closeHandles(hs ...windows.Handle) {
	for _, h := range hs {
		_ = windows.CloseHandle(h)
	}
}
