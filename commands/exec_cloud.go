package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/studio-bridge/studio-bridge/cloud"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Environment of exec --cloud.
const (
	EnvAPIKey       = "ROBLOX_API_KEY"
	EnvUniverseID   = "ROBLOX_UNIVERSE_ID"
	EnvPlaceID      = "ROBLOX_PLACE_ID"
	EnvOpenCloudURL = "STUDIO_BRIDGE_OPEN_CLOUD_URL"
)

// The result document keeps as many lines as a local exec's.
const (
	maxKeptLines = 10000
	maxKeptBytes = 4 << 20
)

// CloudExecData is exec --cloud's output: a local exec's document plus the
// Open Cloud task's path.
type CloudExecData struct {
	ExecData
	TaskPath string `json:"taskPath"`
}

// CloudPlace names the place an Open Cloud run uses (exec --cloud, test
// --cloud).
type CloudPlace struct {
	Universe     string `json:"universe" mcp:"-" usage:"with --cloud: the experience's universe ID (default $ROBLOX_UNIVERSE_ID)"`
	Place        string `json:"place" mcp:"-" usage:"with --cloud: the place ID (default $ROBLOX_PLACE_ID)"`
	PlaceVersion int    `json:"placeVersion" mcp:"-" usage:"with --cloud: run against this place version (default the latest)"`
	PlaceFile    string `json:"placeFile" mcp:"-" usage:"with --cloud: upload this .rbxl/.rbxlx (e.g. built by Rojo) as a Saved version first, then run against exactly that version"`

	// cmd names the command in errors ("test --cloud: …"); "" is exec.
	cmd string
}

// cloudFlag names a --cloud-only argument that was given, or "".
func (a *CloudPlace) cloudFlag() string {
	switch {
	case a.Universe != "":
		return "--universe"
	case a.Place != "":
		return "--place"
	case a.PlaceVersion != 0:
		return "--place-version"
	case a.PlaceFile != "":
		return "--place-file"
	}
	return ""
}

// cloudSetup is a checked exec --cloud invocation.
type cloudSetup struct {
	client          *cloud.Client
	universe, place int64
}

// checkCloud checks everything it can before any request: a missing key,
// universe or place, a bad place file or an oversized script is a usage
// error.
func checkCloud(env *Env, args *ExecArgs) (*cloudSetup, error) {
	cmd := args.cmd
	if cmd == "" {
		cmd = "exec"
	}
	usage := func(format string, a ...any) error { return UsageError{fmt.Errorf(cmd+" --cloud: "+format, a...)} }
	if !args.Cloud {
		return nil, UsageError{fmt.Errorf("%s: %s only applies with --cloud", cmd, args.cloudFlag())}
	}
	if len(args.Script) > cloud.MaxScriptBytes {
		return nil, usage("the script is %d bytes; Open Cloud takes at most %d MiB", len(args.Script), cloud.MaxScriptBytes>>20)
	}
	key := strings.TrimSpace(os.Getenv(EnvAPIKey))
	if key == "" {
		return nil, usage("set %s to an Open Cloud API key with the %s and %s permissions (and %s for --place-file)", EnvAPIKey, cloud.PermExecWrite, cloud.PermExecRead, cloud.PermPlacesWrite)
	}
	id := func(flag, envName, value string) (int64, error) {
		if value == "" {
			value = strings.TrimSpace(os.Getenv(envName))
		}
		if value == "" {
			return 0, usage("give --%s or set %s", flag, envName)
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n <= 0 {
			return 0, usage("--%s / %s: %q is not a %s ID (a positive whole number)", flag, envName, value, flag)
		}
		return n, nil
	}
	var s cloudSetup
	var err error
	if s.universe, err = id("universe", EnvUniverseID, args.Universe); err != nil {
		return nil, err
	}
	if s.place, err = id("place", EnvPlaceID, args.Place); err != nil {
		return nil, err
	}
	switch {
	case args.PlaceVersion < 0:
		return nil, usage("--place-version %d is not a version number", args.PlaceVersion)
	case args.PlaceVersion > 0 && args.PlaceFile != "":
		return nil, usage("--place-version and --place-file contradict each other: the upload makes the version; give one")
	}
	if args.PlaceFile != "" {
		if _, err := cloud.PlaceContentType(args.PlaceFile); err != nil {
			return nil, usage("--place-file: %v", err)
		}
		st, err := os.Stat(args.PlaceFile)
		switch {
		case err != nil:
			return nil, usage("--place-file: %s does not exist or cannot be read", args.PlaceFile)
		case !st.Mode().IsRegular():
			return nil, usage("--place-file: %s is not a file", args.PlaceFile)
		case st.Size() == 0:
			return nil, usage("--place-file: %s is empty", args.PlaceFile)
		case st.Size() > cloud.MaxPlaceBytes:
			return nil, usage("--place-file: %s is larger than %d MiB", args.PlaceFile, cloud.MaxPlaceBytes>>20)
		}
	}
	base := strings.TrimSpace(os.Getenv(EnvOpenCloudURL))
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, usage("%s=%q is not an http(s) URL", EnvOpenCloudURL, base)
		}
		// The key must not cross a network in clear text: plain http is
		// for a stand-in on this machine only.
		if h := u.Hostname(); u.Scheme == "http" && h != "localhost" && !isLoopback(h) {
			return nil, usage("%s=%q: plain http would send the API key unencrypted; use https (http is accepted for loopback addresses only)", EnvOpenCloudURL, base)
		}
	}
	s.client = cloud.New(base, key)
	s.client.Log = env.Log
	return &s, nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runCloud is exec --cloud: upload the place file if given, run the script
// as an Open Cloud task and report it as a local exec reports.
func runCloud(ctx context.Context, env *Env, args *ExecArgs) (*Result, error) {
	s, err := checkCloud(env, args)
	if err != nil {
		return nil, err
	}
	task := cloud.Task{Script: args.Script, UniverseID: s.universe, PlaceID: s.place, Version: int64(args.PlaceVersion)}
	task.Timeout = min(env.Timeout, cloud.MaxTimeout)
	if args.PlaceFile != "" {
		done := env.StatusAfter("uploading " + args.PlaceFile + " to Open Cloud…")
		task.Version, err = s.client.UploadPlace(ctx, s.universe, s.place, args.PlaceFile)
		done()
		if err != nil {
			return nil, cloudError(ctx, err)
		}
	}
	// Every line streams; the document keeps what a local exec keeps
	// (the plugin's cap: 10,000 lines or 4 MiB) and counts the rest.
	var lines []Line
	var seq int64
	kept, dropped := 0, 0
	done := env.StatusAfter("running in Open Cloud…")
	out, err := s.client.Run(ctx, task, func(cl cloud.Line) {
		seq++
		l := Line{Level: cloudLevel(cl.Type), Body: cl.Message, Seq: seq}
		if !cl.CreateTime.IsZero() {
			l.Timestamp = float64(cl.CreateTime.UnixMilli()) // milliseconds, as Studio lines are stamped
		}
		if len(lines) < maxKeptLines && kept+len(l.Body) <= maxKeptBytes {
			lines = append(lines, l)
			kept += len(l.Body)
		} else {
			dropped++
		}
		env.emit(l)
	})
	done()
	if err != nil {
		return nil, cloudError(ctx, err)
	}
	if lines == nil {
		lines = []Line{}
	}
	data := CloudExecData{ExecData: ExecData{Success: out.State == cloud.StateComplete, Logs: lines, ReturnValues: out.Results, DroppedLogs: dropped}, TaskPath: out.TaskPath}
	res := &Result{}
	switch {
	case out.State == cloud.StateComplete:
	case out.Error != nil && out.Error.Code == cloud.CodeScriptError:
		data.Error = out.Error.Message
		res.Failure = "script error: " + data.Error
	case out.Error != nil && out.Error.Code == cloud.CodeOutputSizeExceeded:
		// The script ran; its results could not be kept: a failed
		// action (exit 1), as a local exec's oversized answer is.
		data.Error = out.Failure().Error()
		res.Failure = data.Error
	default: // DEADLINE_EXCEEDED (exit 4), INTERNAL_ERROR, CANCELLED (exit 3)
		return nil, cloudError(ctx, out.Failure())
	}
	res.Data = data
	var b strings.Builder
	for _, v := range out.Results {
		var x any
		_ = json.Unmarshal(v, &x)
		b.WriteString(FormatValue(x) + "\n")
	}
	res.Text = b.String()
	var notes []string
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("warning: %d more output lines were printed above but are not in the result document (it keeps at most 10,000 lines or 4 MiB)", dropped))
	}
	if out.LogsErr != nil {
		notes = append(notes, "warning: the task's log lines could not all be read: "+out.LogsErr.Error())
	}
	res.Note = strings.Join(notes, "\n")
	return res, nil
}

// cloudLevel maps an Open Cloud messageType to a line level.
func cloudLevel(t string) string {
	switch t {
	case "WARNING":
		return "Warning"
	case "ERROR":
		return "Error"
	case "INFO":
		return "Info"
	}
	return "Print"
}

// cloudFailure keeps a cloud error's text and kind while carrying the
// protocol code that picks the documented exit code: 3 for Open Cloud
// refusing or failing (auth, not found, locked, rate limited, unreachable,
// unknown outcome), 4 for a timeout.
type cloudFailure struct {
	err  error
	code protocol.Code
}

func (e *cloudFailure) Error() string { return e.err.Error() }

func (e *cloudFailure) Unwrap() []error {
	return []error{e.err, &protocol.Error{Code: e.code, Message: e.err.Error()}}
}

func cloudError(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return err // exits 130; the message names the task, which runs on
	}
	switch cloud.KindOf(err) {
	case cloud.KindTimeout:
		return &cloudFailure{err, protocol.CodeTimeout}
	case cloud.KindUnknownOutcome:
		return &cloudFailure{err, protocol.CodeUnknownOutcome}
	case cloud.KindRejected, 0:
		return err
	}
	return &cloudFailure{err, protocol.CodeHostUnavailable}
}
