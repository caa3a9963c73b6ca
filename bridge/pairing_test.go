package bridge

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// lastErrMentions waits until the fake window's last error mentions every
// one of want.
func lastErrMentions(t *testing.T, w *fakeplugin.Plugin, want ...string) {
	t.Helper()
	eventually(t, "the window's error to mention "+strings.Join(want, ", "), func() bool {
		err := w.LastErr()
		if err == nil {
			return false
		}
		for _, s := range want {
			if !strings.Contains(err.Error(), s) {
				return false
			}
		}
		return true
	})
}

// TestPluginsArePaired (issue 22 item 1): a window without the pairing key,
// or with another token's, is refused with UNAUTHORIZED and told to run
// install-plugin; the host registers none of its sessions and still serves
// a paired window.
func TestPluginsArePaired(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	other := authtoken.PairingKey(authtoken.Generate())
	tests := []struct {
		name string
		cfg  fakeplugin.Config
		want []string
	}{
		{"unpaired", fakeplugin.Config{Unpaired: true}, []string{"UNAUTHORIZED", "not paired", "studio-bridge install-plugin"}},
		{"wrong key", fakeplugin.Config{Key: other, TrustAnyHost: true}, []string{"UNAUTHORIZED", "does not match", "studio-bridge install-plugin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Port, cfg.InstanceID, cfg.NoReconnect = h.port, "intruder-"+strings.ReplaceAll(tt.name, " ", "-"), true
			w := kit.StartPlugin(t, inMemory(cfg))
			lastErrMentions(t, w, tt.want...)
			for _, s := range h.Sessions() {
				if s.InstanceID == cfg.InstanceID {
					t.Fatalf("the host registered a session of a window that did not prove the key: %+v", s)
				}
			}
		})
	}
	if _, ids := startWindow(t, fakeplugin.Config{Port: h.port}); ids[protocol.ContextEdit] == "" {
		t.Fatal("a paired window was not attached")
	}
}

// TestRawPairingRefusals: the handshake by hand. A hello without a nonce,
// a pair with no proof or a wrong one, and any other frame in place of the
// pair are refused (reject, then 1008) before the socket carries anything.
func TestRawPairingRefusals(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	key := kit.Token(t).PairingKey()

	r := openRaw(t, h.port, protocol.PathPlugin)
	hello := goodHello("no-nonce")
	hello.Nonce = ""
	r.send(hello)
	r.expectReject(protocol.CodeUnauthorized, "not paired", "studio-bridge install-plugin")
	r.expectClose(websocket.StatusPolicyViolation)

	for _, tt := range []struct {
		name string
		next func(protocol.Hello, protocol.Welcome) protocol.Message
		code protocol.Code
		want string
	}{
		{"empty proof", func(protocol.Hello, protocol.Welcome) protocol.Message { return protocol.Pair{} }, protocol.CodeUnauthorized, "not paired"},
		{"wrong key", func(hl protocol.Hello, w protocol.Welcome) protocol.Message {
			return protocol.Pair{Proof: protocol.PluginProof([]byte("not the key"), w.Nonce, hl.Nonce, hl.InstanceID)}
		}, protocol.CodeUnauthorized, "does not match"},
		{"the host proof replayed", func(_ protocol.Hello, w protocol.Welcome) protocol.Message {
			return protocol.Pair{Proof: w.Proof}
		}, protocol.CodeUnauthorized, "does not match"},
		{"attach instead of pair", func(hl protocol.Hello, _ protocol.Welcome) protocol.Message {
			return goodAttach(hl.InstanceID, protocol.ContextEdit)
		}, protocol.CodeInvalidHello, "pair"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := openRaw(t, h.port, protocol.PathPlugin)
			hl := goodHello("raw-" + strings.ReplaceAll(tt.name, " ", "-"))
			r.send(hl)
			w := r.expect(protocol.TypeWelcome).(protocol.Welcome)
			if !protocol.ProofMatches(protocol.HostProof(key, w.Nonce, hl.Nonce, hl.InstanceID), w.Proof) {
				t.Fatalf("the host's proof does not check out: %+v", w)
			}
			r.send(tt.next(hl, w))
			r.expectReject(tt.code, tt.want)
			r.expectClose(websocket.StatusPolicyViolation)
		})
	}
	if n := len(h.Sessions()); n != 0 {
		t.Fatalf("%d sessions registered by sockets that never paired", n)
	}
}

// TestRogueHostCannotCommandPlugins: a host with another token cannot
// prove the window's key; the window refuses it before sending its own
// proof or attaching anything.
func TestRogueHostCannotCommandPlugins(t *testing.T) {
	t.Parallel()
	rogue := newMemHost(t, HostConfig{})
	rogue.pairKey = authtoken.PairingKey(authtoken.Generate()) // another user's host
	w := kit.StartPlugin(t, inMemory(fakeplugin.Config{Port: rogue.port, InstanceID: "victim", NoReconnect: true}))
	lastErrMentions(t, w, "could not prove")
	if n := w.Sockets(); n != 0 {
		t.Fatalf("the window served %d sockets of a host that could not prove the key", n)
	}
	if s := rogue.Sessions(); len(s) != 0 {
		t.Fatalf("the rogue host got sessions: %+v", s)
	}
}

// TestAttack7SessionFloodNeedsTheKey (issue 22 attack 7): sockets without
// the key attaching made-up sessions no longer fill the host's slots: none
// gets past the handshake, and the real window attaches.
func TestAttack7SessionFloodNeedsTheKey(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{})
	for i := range 8 {
		r := openRaw(t, h.port, protocol.PathPlugin)
		hl := goodHello("flood-" + string(rune('a'+i)))
		r.send(hl)
		r.expect(protocol.TypeWelcome)
		for j := range 4 {
			a := goodAttach(hl.InstanceID, protocol.ContextEdit)
			a.Ref = "a" + string(rune('0'+j))
			if err := writeRaw(r, a); err != nil {
				break // the host closed the socket at the first one
			}
		}
		r.expectReject(protocol.CodeInvalidHello, "pair")
	}
	_, ids := startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "real"})
	if s := h.Sessions(); len(s) != 1 || s[0].SessionID != ids[protocol.ContextEdit] {
		t.Fatalf("sessions = %+v, want only the real window's", s)
	}
}

// TestAttack11ImpostorCannotResumeAfterGrace (issue 22 attack 11): once a
// session's grace has passed, a socket without the key naming its id gets
// nothing: it never reaches attach, and a call naming the id does not reach
// it.
func TestAttack11ImpostorCannotResumeAfterGrace(t *testing.T) {
	t.Parallel()
	h := newMemHost(t, HostConfig{ResumeGrace: 50 * time.Millisecond})
	w, ids := startWindow(t, fakeplugin.Config{Port: h.port, InstanceID: "real", NoReconnect: true})
	sid := ids[protocol.ContextEdit]
	w.Close()
	eventually(t, "the session to end after its grace", func() bool { return len(h.Sessions()) == 0 })

	r := openRaw(t, h.port, protocol.PathPlugin)
	hl := goodHello("real")
	r.send(hl)
	wl := r.expect(protocol.TypeWelcome).(protocol.Welcome)
	r.send(protocol.Pair{Proof: protocol.PluginProof([]byte("guessed key"), wl.Nonce, hl.Nonce, hl.InstanceID)})
	_ = writeRaw(r, protocol.Attach{Ref: "x", InstanceID: "real", Context: protocol.ContextEdit, PreviousSessionID: sid})
	r.expectReject(protocol.CodeUnauthorized, "studio-bridge install-plugin")
	if _, err := h.callT(t, sid, "exec", map[string]string{"script": "return 1"}); err == nil {
		t.Fatal("a call naming the old session id was answered")
	}
	if n := len(h.Sessions()); n != 0 {
		t.Fatalf("%d sessions after an impostor's attach", n)
	}
}

// TestHostWithoutTokenRefusesPlugins: with no token there is no key, so no
// plugin pairs; the reject says how to give the host one.
func TestHostWithoutTokenRefusesPlugins(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{Listener: ln, Log: testLog(t)})
	t.Cleanup(h.Kill)
	r := openRaw(t, ln.Addr().(*net.TCPAddr).Port, protocol.PathPlugin)
	r.send(goodHello("any"))
	r.expectReject(protocol.CodeUnauthorized, authtoken.EnvToken)
}

// writeRaw sends m, reporting (not failing on) a write error: the host may
// already have closed the socket.
func writeRaw(r *rawConn, m protocol.Message) error {
	data, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	if err := r.c.Write(r.t.Context(), websocket.MessageText, data); err != nil {
		return errors.Join(errors.New("write"), err)
	}
	return nil
}
