package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/commands"
	"github.com/studio-bridge/studio-bridge/mcp"
)

// mcpCommand is the MCP surface: a long-lived server over stdio (or
// Streamable HTTP) on one bridge connection.
func mcpCommand(stdio IO) *cli.Command {
	flags := append([]cli.Flag{
		&cli.StringFlag{Name: "http", Usage: "serve Streamable HTTP at `ADDR` (path /mcp; loopback unless a host is given) instead of stdio"},
		&cli.BoolFlag{Name: "allow-remote", Usage: "with --http: allow an address beyond loopback (every request needs the MCP token either way: " + authtoken.EnvMCPToken + ", else the file 'studio-bridge token --mcp' prints)"},
		&cli.BoolFlag{Name: "read-only", Usage: "do not offer tools that change Studio (" + mutatingTools() + ")"},
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
			if err := configureSourceMap(c, stdio.Err); err != nil {
				return err
			}
			var tools []string
			if t := c.String("tools"); t != "" {
				tools = strings.Split(t, ",")
			}
			if err := refuseGlobals(c, "it speaks MCP on stdout and runs until its client leaves", "json", "keep-alive"); err != nil {
				return err
			}
			opts := mcp.Options{Version: commands.Version, Project: global(c, "project").String("project"), ReadOnly: c.Bool("read-only"), Tools: tools, Log: log,
				Timeout: global(c, "timeout").Duration("timeout")}
			if _, err := mcp.Exposed(opts); err != nil {
				return commands.UsageError{Err: err}
			}
			var plan httpPlan
			if addr := c.String("http"); addr != "" {
				if plan, err = planHTTP(addr, c.Bool("allow-remote")); err != nil {
					return err
				}
			} else if c.Bool("allow-remote") {
				return commands.UsageError{Err: errors.New("--allow-remote applies to --http only (stdio reaches the process that started the server, nobody else)")}
			}
			ctx := c.Context
			// An agent's server outlives a --remote host that is not up
			// yet or restarts: it keeps trying, and tools report the host
			// as unavailable meanwhile.
			bopts, err := bridgeOptions(c, log)
			if err != nil {
				return err
			}
			bopts.Lazy = true
			// A call while no host can be reached answers the spec's
			// "Cannot connect to studio-bridge" in seconds, not after
			// the whole failover wait.
			bopts.UnreachableWait = mcp.UnreachableWait
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
			if plan.addr != "" {
				return serveHTTP(ctx, s, plan, stdio.Err)
			}
			return mcp.ServeStdio(ctx, s, io.NopCloser(stdio.In), nopWriteCloser{stdio.Out})
		},
	}
}

// httpPlan is how `mcp --http` serves, decided before anything starts.
type httpPlan struct {
	addr   string          // HOST:PORT to bind
	remote bool            // beyond loopback (--allow-remote given)
	token  authtoken.Token // the MCP token every request needs, loopback included
}

// planHTTP checks an --http address: loopback, or beyond it only with
// --allow-remote. Every request needs the MCP token, loopback included
// (any local process, any account on a shared machine, can reach
// loopback): STUDIO_BRIDGE_MCP_TOKEN, else the MCP token file
// (`studio-bridge token --mcp` prints it). Never the user's own token, and
// never a flag. An address without a host binds loopback.
func planHTTP(addr string, allowRemote bool) (httpPlan, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return httpPlan{}, commands.UsageError{Err: fmt.Errorf("--http %q: want HOST:PORT or :PORT", addr)}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	plan := httpPlan{addr: net.JoinHostPort(host, port), remote: !mcp.LoopbackHost(host)}
	if plan.remote && !allowRemote {
		return httpPlan{}, commands.UsageError{Err: fmt.Errorf(
			"--http %s is not a loopback address: whoever can reach it could run code in Studio; serve on loopback (--http 127.0.0.1:%s), or add --allow-remote to serve beyond it (every request needs the MCP token either way)", addr, port)}
	}
	if plan.token, err = authtoken.ResolveMCP(); err != nil {
		if os.Getenv(authtoken.EnvMCPToken) != "" {
			return httpPlan{}, commands.UsageError{Err: err}
		}
		return httpPlan{}, fmt.Errorf("mcp --http needs the MCP token: %w", err)
	}
	return plan, nil
}

// serveHTTP serves Streamable HTTP at /mcp. DNS-rebinding protection (the
// SDK's) and cross-origin protection stay on; with a token, every request
// needs it first.
func serveHTTP(ctx context.Context, s *sdk.Server, plan httpPlan, stderr io.Writer) error {
	ln, err := net.Listen("tcp", plan.addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	ln = mcp.LimitConns(ln, mcp.MaxHTTPConns)
	h := mcp.BearerAuth(plan.token.Value, mcp.HTTPHandler(s))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "studio-bridge MCP server: http://%s/mcp\n", ln.Addr())
	if plan.remote {
		fmt.Fprintf(stderr, "studio-bridge MCP server: warning: serving beyond loopback on %s: whoever can reach it and holds the bearer token can run code in Studio, and plain HTTP is not encrypted (prefer a trusted network or an SSH tunnel)\n", ln.Addr())
	}
	// Where the token lives, never the token: stderr may be a log.
	fmt.Fprintf(stderr, "studio-bridge MCP server: every request needs `Authorization: Bearer <MCP token>` (the token from %s; `studio-bridge token --mcp` prints it)\n", plan.token.Source)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		// Shutdown ends the HTTP requests, not the MCP sessions they
		// opened: end those too, or their goroutines outlive the server.
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mutatingTools names the MCP tools --read-only leaves out: every one whose
// command changes Studio.
func mutatingTools() string {
	var names []string
	for _, d := range commands.All {
		if d.MCP && d.Mutates {
			names = append(names, mcp.ToolName(d))
		}
	}
	return strings.Join(names, ", ")
}
