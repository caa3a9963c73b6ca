package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/mcp"
)

// mcpCommand is the MCP surface: a long-lived server over stdio (or
// Streamable HTTP) on one bridge connection.
func mcpCommand(stdio IO) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP at `ADDR` (path /mcp; loopback unless a host is given) instead of stdio"},
		&cli.BoolFlag{Name: "read-only", Usage: "do not offer tools that change Studio (studio_exec)"},
		&cli.StringFlag{Name: "tools", Usage: "offer only these tools, comma-separated (e.g. studio_sessions,studio_logs)"},
	}, globalFlags()...)
	return &cli.Command{
		Name:         "mcp",
		Usage:        "Serve the Model Context Protocol for AI agents (stdio by default).",
		Flags:        flags,
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			level := global(c, "log-level").String("log-level")
			if level == "" {
				level = "error" // stderr is the MCP client's log: keep it quiet
			}
			log, err := newLogger(level, nil, stdio.Err)
			if err != nil {
				return commands.UsageError{Err: err}
			}
			var tools []string
			if t := c.String("tools"); t != "" {
				tools = strings.Split(t, ",")
			}
			if err := refuseGlobals(c, "it speaks MCP on stdout and runs until its client leaves", "json", "keep-alive"); err != nil {
				return err
			}
			opts := mcp.Options{Version: commands.Version, ReadOnly: c.Bool("read-only"), Tools: tools, Log: log,
				Timeout: global(c, "timeout").Duration("timeout")}
			if _, err := mcp.Exposed(opts); err != nil {
				return commands.UsageError{Err: err}
			}
			ctx := c.Context
			// An agent's server outlives a --remote host that is not up
			// yet or restarts: it keeps trying, and tools report the host
			// as unavailable meanwhile.
			bopts := bridgeOptions(c, log)
			bopts.Lazy = true
			b, err := bridge.Connect(ctx, bopts)
			if err != nil {
				return err
			}
			defer leave(b, log)
			s, err := mcp.New(b, opts)
			if err != nil {
				return err
			}
			wctx, stop := context.WithCancel(ctx)
			defer stop()
			go mcp.WatchResources(wctx, s, b)
			if addr := c.String("http"); addr != "" {
				return serveHTTP(ctx, s, addr, stdio.Err)
			}
			return mcp.ServeStdio(ctx, s, io.NopCloser(stdio.In), nopWriteCloser{stdio.Out})
		},
	}
}

// serveHTTP serves Streamable HTTP at /mcp. DNS-rebinding protection (the
// SDK's) and cross-origin protection stay on; an address without a host
// binds loopback.
func serveHTTP(ctx context.Context, s *sdk.Server, addr string, stderr io.Writer) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return commands.UsageError{Err: fmt.Errorf("--http %q: want HOST:PORT or :PORT", addr)}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(mcp.BoundBodies(sdk.NewStreamableHTTPHandler(
		func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{}))))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "studio-bridge MCP server: http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
