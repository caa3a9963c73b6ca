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
// Plugins negotiate against PluginSupportedVersions. For version 2 only the
// socket-level fields (instanceId, pluginVersion) are checked: the session
// fields a v2 plugin sends are there for a v1 host and are ignored.
func ValidateHello(h Hello) (int, *Error) {
	v, ok := NegotiatePlugin(h.ProtocolVersions)
	if !ok {
		return 0, Errorf(CodeUnsupportedProtocol,
			"studio-bridge host speaks plugin protocol version(s) %v but the plugin offered %v; update the plugin with `studio-bridge install-plugin` (or update studio-bridge)",
			PluginSupportedVersions, h.ProtocolVersions)
	}
	if !validInstanceID(h.InstanceID) {
		return 0, Errorf(CodeInvalidHello, "hello needs an instanceId of 1-128 letters, digits or ._:- (got %q)", clip(h.InstanceID))
	}
	if len(h.PluginVersion) > MaxPluginVersionBytes || len(h.ResumeSecret) > MaxResumeSecretBytes {
		return 0, Errorf(CodeInvalidHello, "hello fields are too long")
	}
	if v >= 2 {
		return v, nil
	}
	switch h.Context {
	case ContextEdit, ContextServer, ContextClient:
	default:
		return 0, Errorf(CodeInvalidHello, "hello has context %q; want edit, server or client", clip(string(h.Context)))
	}
	if h.State != "" && !h.State.Valid() {
		return 0, Errorf(CodeInvalidHello, "hello has state %q; want Edit, Play, Run, Paused, Server or Client", clip(string(h.State)))
	}
	if len(h.PlaceName) > MaxPlaceNameBytes || len(h.PluginVersion) > MaxPluginVersionBytes || !validCapabilities(h.Capabilities) {
		return 0, Errorf(CodeInvalidHello, "hello fields are too long (placeName at most %d bytes, pluginVersion %d, at most %d capabilities of %d bytes)",
			MaxPlaceNameBytes, MaxPluginVersionBytes, MaxCapabilities, MaxCapabilityBytes)
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
	if len(h.ClientVersion) > 64 || len(h.Token) > MaxTokenBytes {
		return 0, Errorf(CodeInvalidHello, "client-hello fields are too long")
	}
	if len(h.Returning) > MaxReturning {
		return 0, Errorf(CodeInvalidHello, "client-hello lists %d returning sessions; at most %d", len(h.Returning), MaxReturning)
	}
	for _, id := range h.Returning {
		if len(id) == 0 || len(id) > 64 {
			return 0, Errorf(CodeInvalidHello, "client-hello has a returning session id of %d bytes; want 1-64", len(id))
		}
	}
	return v, nil
}

// String renders a hello for logs without anything secret in it (there is
// nothing secret in a hello, but the place name is user data: keep it short).
func (h Hello) String() string {
	return fmt.Sprintf("instance=%s context=%s place=%q state=%s plugin=%s", h.InstanceID, h.Context, clip(h.PlaceName), h.State, h.PluginVersion)
}
