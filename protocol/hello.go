package protocol

import "fmt"

// validInstanceID accepts 1-128 letters, digits and ._:- (a hand-written
// check: a regexp here would cost every process start).
func validInstanceID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// ValidateHello checks a plugin hello and returns the negotiated protocol
// version, or a *Error fit for a Reject frame.
//
// Plugins negotiate against PluginSupportedVersions. A plugin that offers
// only version 1 (a plugin installed before version 2, which studio-bridge
// no longer speaks) is told to run `studio-bridge install-plugin`: the
// plugin shows a reject's message in Studio's Output. The hello carries only
// socket-level fields; each DataModel's fields come with its attach.
func ValidateHello(h Hello) (int, *Error) {
	v, ok := NegotiatePlugin(h.ProtocolVersions)
	if !ok {
		return 0, Errorf(CodeUnsupportedProtocol,
			"the Studio plugin offered plugin protocol %v but this studio-bridge speaks only %v; run `studio-bridge install-plugin` to install the plugin that matches it, then reload plugins in Studio",
			h.ProtocolVersions, PluginSupportedVersions)
	}
	if !validInstanceID(h.InstanceID) {
		return 0, Errorf(CodeInvalidHello, "hello needs an instanceId of 1-128 letters, digits or ._:- (got %q)", clip(h.InstanceID))
	}
	if h.Nonce == "" {
		return 0, Errorf(CodeUnauthorized, "%s", UnpairedMessage)
	}
	if !ValidNonce(h.Nonce) {
		return 0, Errorf(CodeInvalidHello, "hello needs a nonce of %d-%d letters, digits, '-' or '_'", MinNonceBytes, MaxNonceBytes)
	}
	if len(h.PluginVersion) > MaxPluginVersionBytes {
		return 0, Errorf(CodeInvalidHello, "hello fields are too long (pluginVersion at most %d bytes)", MaxPluginVersionBytes)
	}
	return v, nil
}

// validCapabilities bounds a session's capability list: it is sent to every
// client in every client-welcome.
func validCapabilities(caps []string) bool {
	if len(caps) > MaxCapabilities {
		return false
	}
	for _, c := range caps {
		if len(c) > MaxCapabilityBytes {
			return false
		}
	}
	return true
}

// ValidateClientHello checks a client hello and returns the negotiated
// protocol version, or a *Error fit for a Reject frame.
func ValidateClientHello(h ClientHello) (int, *Error) {
	v, ok := Negotiate(h.ProtocolVersions)
	if !ok {
		return 0, Errorf(CodeUnsupportedProtocol,
			"bridge host speaks protocol version(s) %v but this studio-bridge offered %v; run the same studio-bridge version everywhere",
			SupportedVersions, h.ProtocolVersions)
	}
	if len(h.ClientVersion) > 64 || len(h.Token) > MaxTokenBytes || len(h.Nonce) > MaxNonceBytes {
		return 0, Errorf(CodeInvalidHello, "client-hello fields are too long")
	}
	if perr := ValidateReturning(TypeClientHello, h.Returning); perr != nil {
		return 0, perr
	}
	return v, nil
}

// ValidateReturning bounds the returning list of a rejoining client (in
// client-proof since client protocol 3; in client-hello before): at most
// MaxReturning ids of 1-64 bytes. where names the frame for the message.
func ValidateReturning(where string, ids []string) *Error {
	if len(ids) > MaxReturning {
		return Errorf(CodeInvalidHello, "%s lists %d returning sessions; at most %d", where, len(ids), MaxReturning)
	}
	for _, id := range ids {
		if len(id) == 0 || len(id) > 64 {
			return Errorf(CodeInvalidHello, "%s has a returning session id of %d bytes; want 1-64", where, len(id))
		}
	}
	return nil
}

// String renders a hello for logs (there is nothing secret in a hello).
func (h Hello) String() string {
	return fmt.Sprintf("instance=%s plugin=%s versions=%v", clip(h.InstanceID), clip(h.PluginVersion), h.ProtocolVersions)
}
