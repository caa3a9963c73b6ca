package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// TestWrongTokenOnEverySurface: with the bridge host in one config
// directory and the caller in another (two tokens), the one-shot CLI,
// doctor, the terminal and the stdio MCP server each say plainly that the token is
// wrong, which token file and config directory the caller used, and how to
// fix it; MCP says it in the tool result's error text, and on stderr.
func TestWrongTokenOnEverySurface(t *testing.T) {
	port := freePort(t) // the caller: the test's config directory
	n, _ := strconv.Atoi(port)
	hostDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	host, err := bridge.Connect(ctx, bridge.Options{Port: n,
		Token: authtoken.Token{Value: authtoken.Generate(), Source: filepath.Join(hostDir, authtoken.FileName)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Close() })
	dir := kit.ConfigDir(t)
	want := []string{"wrong token: ", filepath.Join(dir, authtoken.FileName), "config directory " + dir,
		authtoken.EnvConfigDir, `"env" block`, ".mcp.json", authtoken.EnvToken}
	says := func(what, text string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, text)
			}
		}
	}

	_, _, err = run(t, "--port", port, "sessions")
	if err == nil {
		t.Fatal("sessions joined a host with another token")
	}
	says("the CLI's error", err.Error())

	// doctor fails its token check with the same text, once
	docOut, _, err := run(t, "--port", port, "doctor")
	if err == nil || !strings.Contains(docOut, "failed    token.file: wrong token: ") || strings.Count(docOut, "wrong token: ") != 1 {
		t.Errorf("doctor (%v):\n%s", err, docOut)
	}
	says("doctor's token check", docOut)

	var out, errb bytes.Buffer
	err = Run(ctx, []string{"studio-bridge", "--port", port, "terminal"}, IO{In: strings.NewReader(".exit\n"), Out: &out, Err: &errb})
	if err == nil {
		t.Fatalf("the terminal attached to a host with another token:\n%s", out.String())
	}
	says("the terminal's error", err.Error())

	// The MCP server over stdio: a tool call's result.
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"studio_sessions","arguments":{}}}`,
	}, "\n") + "\n"
	pr, pw := io.Pipe()
	var mcpErr kit.Buffer
	mcpDone := make(chan error, 1)
	mctx, mcancel := context.WithCancel(ctx)
	defer mcancel()
	lines := &lineWatch{want: `"id":2`, got: make(chan string, 1)}
	go func() {
		mcpDone <- Run(mctx, []string{"studio-bridge", "--port", port, "mcp"}, IO{In: pr, Out: lines, Err: &mcpErr})
	}()
	_, _ = pw.Write([]byte(in))
	var answer string
	select {
	case answer = <-lines.got:
	case <-ctx.Done():
		t.Fatalf("no answer to the tool call; stderr:\n%s", mcpErr.String())
	}
	_ = pw.Close()
	mcancel()
	<-mcpDone
	if !strings.Contains(answer, `"isError":true`) {
		t.Fatalf("want a tool error, got %s", answer)
	}
	says("the MCP tool result", strings.ReplaceAll(answer, `\\\"`, `"`))
	says("the MCP server's stderr", strings.ReplaceAll(mcpErr.String(), `\"`, `"`))
}

// lineWatch is an io.Writer that hands over the first whole line
// containing want.
type lineWatch struct {
	want string
	got  chan string
	mu   sync.Mutex
	buf  []byte
	sent bool
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		if !w.sent && strings.Contains(line, w.want) {
			w.sent = true
			w.got <- line
		}
	}
}
