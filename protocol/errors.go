package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Code is a machine-readable error code carried in responses, rejects and
// protocol error notices.
type Code string

// Codes a plugin may answer with.
const (
	CodeUnknownAction         Code = "UNKNOWN_ACTION"
	CodeInvalidPayload        Code = "INVALID_PAYLOAD"
	CodeBusy                  Code = "BUSY"
	CodeTimeout               Code = "TIMEOUT"
	CodeInstanceNotFound      Code = "INSTANCE_NOT_FOUND"
	CodePropertyNotFound      Code = "PROPERTY_NOT_FOUND"
	CodeScreenshotFailed      Code = "SCREENSHOT_FAILED"
	CodeCapabilityUnsupported Code = "CAPABILITY_UNSUPPORTED"
	CodeInternal              Code = "INTERNAL"
)

// Codes of the script actions (scriptRead, scriptGrep, scriptEdit; package
// protocol/actions). Each message says what to do next.
const (
	// CodeNotAScript: the path names an instance that is not a script.
	CodeNotAScript Code = "NOT_A_SCRIPT"
	// CodeNoMatch: an edit's text to find does not occur in the script.
	CodeNoMatch Code = "NO_MATCH"
	// CodeAmbiguousMatch: an edit's text to find occurs more than once;
	// the details name the candidate lines.
	CodeAmbiguousMatch Code = "AMBIGUOUS_MATCH"
	// CodeScriptChanged: the script's text moved since it was read (its
	// hash differs); nothing was written.
	CodeScriptChanged Code = "SCRIPT_CHANGED"
	// CodeScriptLocked: Studio refused to change the script (a package
	// member, a script another Team Create user holds).
	CodeScriptLocked Code = "SCRIPT_LOCKED"
)

// Codes the host (or a joined client) produces.
const (
	// CodeSessionNotFound: the request named a session the host does not have.
	CodeSessionNotFound Code = "SESSION_NOT_FOUND"
	// CodeSessionDisconnected: the plugin went away before it answered.
	CodeSessionDisconnected Code = "SESSION_DISCONNECTED"
	// CodeUnknownOutcome: the link to the host broke while the request was in
	// flight; the action may or may not have run.
	CodeUnknownOutcome Code = "UNKNOWN_OUTCOME"
	// CodeHostUnavailable: no bridge host could be reached.
	CodeHostUnavailable Code = "HOST_UNAVAILABLE"
	// CodeShuttingDown: the host is draining and takes no new work.
	CodeShuttingDown Code = "SHUTTING_DOWN"
	// CodeCancelled: the caller cancelled the request.
	CodeCancelled Code = "CANCELLED"
	// CodeUnsupportedProtocol: no common protocol version (in a reject).
	CodeUnsupportedProtocol Code = "UNSUPPORTED_PROTOCOL"
	// CodeInvalidHello: the first frame was not an acceptable hello.
	CodeInvalidHello Code = "INVALID_HELLO"
	// CodeUnauthorized: a client-hello without the user's token, or with
	// a wrong one (in a reject).
	CodeUnauthorized Code = "UNAUTHORIZED"
	// CodeMalformedFrame: a frame was not a JSON object with a known shape.
	CodeMalformedFrame Code = "MALFORMED_FRAME"
	// CodeUnknownMessage: a frame had a type this peer does not know.
	CodeUnknownMessage Code = "UNKNOWN_MESSAGE_TYPE"
	// CodeUnknownRequest: a response, progress or chunk named no pending request.
	CodeUnknownRequest Code = "UNKNOWN_REQUEST"
	// CodePayloadTooLarge: a reassembled payload exceeded its limit.
	CodePayloadTooLarge Code = "PAYLOAD_TOO_LARGE"
	// CodeTooManyWatches: a client's watch went past MaxWatchesPerClient
	// (in an error notice; the watch is not recorded).
	CodeTooManyWatches Code = "TOO_MANY_WATCHES"
)

// Error is a typed error that crosses process boundaries intact: a plugin's
// error response, or a host's, arrives at the caller as the same *Error.
type Error struct {
	Code    Code            `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details,omitempty"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return e.Message
}

// Is makes errors.Is match any *Error with the same code, so callers can test
// errors.Is(err, &protocol.Error{Code: protocol.CodeBusy}).
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) || t == nil {
		return false
	}
	return t.Code == e.Code
}

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the protocol code carried by err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.Code
	}
	return ""
}
