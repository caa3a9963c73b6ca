package commands

import (
	"context"
	"errors"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/bridge"
	"github.com/studio-bridge/studio-bridge/protocol"
)

// Kind classifies how an invocation ended. Every surface renders the same
// Kind its own way: the CLI as an exit code, MCP as a result or an error,
// the terminal as a coloured line. Classify is the one place that decides.
type Kind int

// How an invocation ends.
const (
	// Done: the command ran and answered a Result (which may itself report
	// a failure in Studio, such as a script error, or nothing to act on).
	Done Kind = iota
	// Usage: the invocation was wrong (a bad argument); nothing ran.
	Usage
	// NoSession: no session matches (none connected, an unknown id, a
	// context the window does not have), or the session went away.
	NoSession
	// Ambiguous: several sessions match; Outcome.Sessions lists them.
	Ambiguous
	// Unavailable: the bridge itself is not usable (no host reachable,
	// refused, shutting down, a port held by something else).
	Unavailable
	// TimedOut: the action did not finish in its time.
	TimedOut
	// Cancelled: the caller interrupted it.
	Cancelled
	// Failed: anything else, with its protocol code when it has one.
	Failed
)

var kindNames = [...]string{"done", "usage", "no session", "ambiguous", "unavailable", "timed out", "cancelled", "failed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Outcome is what one invocation came to, classified once for every
// surface.
type Outcome struct {
	Kind Kind
	// Result is the command's answer (Kind Done).
	Result *Result
	// Err is the error as it came (every other Kind); its text is for
	// people, and SpellError words it for another surface.
	Err error
	// Code is the error's protocol code, when it has one.
	Code protocol.Code
	// Detail says more than the error's text (Hint: which part of a path
	// exists); a surface that shows a fixed text instead of Err's (MCP's
	// spec wording) puts Err's own text beside it.
	Detail string
	// Sessions are the candidates to choose from (Ambiguous, or an id
	// that matches none).
	Sessions []protocol.SessionInfo
	// Resolve is why session resolution failed, when it did.
	Resolve bridge.ResolveErrorKind
	// Unreachable: no bridge host could be reached at all (not a failover
	// in progress).
	Unreachable bool
}

// Classify sorts an error into an Outcome. A nil error is Done.
func Classify(err error) Outcome {
	if err == nil {
		return Outcome{Kind: Done}
	}
	o := Outcome{Err: err, Code: protocol.CodeOf(err), Detail: Hint(err)}
	var ue UsageError
	var re *bridge.ResolveError
	var unreachable *bridge.UnreachableError
	switch {
	case errors.As(err, &ue):
		o.Kind = Usage
		return o
	case errors.As(err, &re):
		o.Resolve = re.Kind
		o.Sessions = re.Sessions
		o.Kind = NoSession
		if re.Kind == bridge.MultipleInstances || re.Kind == bridge.AmbiguousSession {
			o.Kind = Ambiguous
		}
		return o
	case errors.As(err, &unreachable):
		o.Kind, o.Unreachable = Unavailable, true
		return o
	case errors.As(err, new(*bridge.PortInUseError)), errors.As(err, new(*authtoken.NoConfigDirError)):
		o.Kind = Unavailable
		return o
	case errors.Is(err, context.Canceled):
		o.Kind = Cancelled
		return o
	}
	switch o.Code {
	case protocol.CodeSessionNotFound, protocol.CodeSessionDisconnected, protocol.CodeUnknownOutcome:
		o.Kind = NoSession
	case protocol.CodeHostUnavailable, protocol.CodeShuttingDown, protocol.CodeUnauthorized:
		o.Kind = Unavailable
	case protocol.CodeTimeout:
		o.Kind = TimedOut
	case protocol.CodeCancelled:
		o.Kind = Cancelled
	default:
		o.Kind = Failed
	}
	return o
}
