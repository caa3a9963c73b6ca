package bridge

// An attach that names a session id: it takes a live session over only with
// that session's resume secret and for the same instance and context, and
// otherwise gets an id of its own.

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/studio-bridge/studio-bridge/protocol"
)

func TestDuplicateSessionAttach(t *testing.T) {
	t.Parallel()
	tb := newTestBed(t)
	first, w1 := rawPlugin(t, tb.port, goodAttach("X", protocol.ContextEdit))
	sid := w1.SessionID

	// Issue 12 item 4: naming a live session's id is not enough to take it
	// over; the newcomer needs the session's resume secret.
	t.Run("same instance and context without the secret gets a fresh id", func(t *testing.T) {
		for _, secret := range []string{"", "not-the-secret"} {
			h := goodAttach("X", protocol.ContextEdit)
			h.PreviousSessionID = sid
			h.ResumeSecret = secret
			impostor, w := rawPlugin(t, tb.port, h)
			if w.SessionID == sid {
				t.Fatalf("a hello without the resume secret (%q) took over session %s", secret, sid)
			}
			if w.ResumeSecret == "" || w.ResumeSecret == w1.ResumeSecret {
				t.Fatalf("impostor's welcome has resume secret %q", w.ResumeSecret)
			}
			first.assertOpen() // the live session is untouched
			// The id still routes to the real plugin.
			tb.assertRoutes(t, "call to the live session", sid, first, `"first"`)
			impostor.leave()
			waitSessionState(t, tb.client, w.SessionID, false)
		}
	})

	t.Run("same instance and context with the secret moves it", func(t *testing.T) {
		h := goodAttach("X", protocol.ContextEdit)
		h.PreviousSessionID = sid
		h.ResumeSecret = w1.ResumeSecret
		second, w2 := rawPlugin(t, tb.port, h)
		if w2.SessionID != sid || !w2.Resumed {
			t.Fatalf("replacement got %+v, want session %s resumed", w2, sid)
		}
		// Told in-band: Studio's WebStreamClient shows the plugin no close
		// code. The old socket stays open, carrying nothing.
		if r := first.expect(protocol.TypeReplaced).(protocol.Replaced); r.Reason == "" || r.SessionID != sid {
			t.Fatalf("replaced frame %+v, want one for %s with a reason", r, sid)
		}
		first.assertOpen()
		second.assertOpen()
		// The id now routes to the new connection.
		tb.assertRoutes(t, "call after replacement", sid, second, `"second"`)
		// One session for X, not two, and the old connection's end did not
		// unregister the id the new one holds. (A negative check: the pause
		// gives the old handler time to finish, it asserts nothing itself.)
		time.Sleep(100 * time.Millisecond)
		if n := countInstance(waitSessions(t, tb.client, 2), "X"); n != 1 {
			t.Fatalf("%d sessions for instance X", n)
		}
		tb.assertServing(t)

		for _, tt := range []struct {
			name     string
			instance string
			context  protocol.Context
		}{
			{"other instance", "Y", protocol.ContextEdit},
			{"same instance, other context", "X", protocol.ContextServer},
		} {
			t.Run(tt.name+" gets a fresh id", func(t *testing.T) {
				h := goodAttach(tt.instance, tt.context)
				h.PreviousSessionID = sid
				other, w := rawPlugin(t, tb.port, h)
				if w.SessionID == sid {
					t.Fatalf("%s/%s took over session %s", tt.instance, tt.context, sid)
				}
				other.assertOpen()
				second.assertOpen() // the holder of the id was not disturbed
				if _, ok := tb.host.hub.get(sid); !ok {
					t.Fatal("the original session vanished")
				}
				other.leave()
				waitSessionState(t, tb.client, w.SessionID, false)
				tb.assertServing(t)
			})
		}
	})

	t.Run("unknown previous id is kept", func(t *testing.T) {
		prev := uuid.NewString()
		h := goodAttach("Z", protocol.ContextEdit)
		h.PreviousSessionID = prev
		_, w := rawPlugin(t, tb.port, h)
		if w.SessionID != prev {
			t.Fatalf("reconnecting plugin got %s, want its previous id %s", w.SessionID, prev)
		}
		tb.assertServing(t)
	})

	t.Run("malformed previous id is ignored", func(t *testing.T) {
		h := goodAttach("Z2", protocol.ContextEdit)
		h.PreviousSessionID = "not-a-uuid"
		_, w := rawPlugin(t, tb.port, h)
		if w.SessionID == h.PreviousSessionID {
			t.Fatal("host accepted a malformed session id")
		}
		tb.assertServing(t)
	})
}

func countInstance(list []protocol.SessionInfo, instance string) int {
	n := 0
	for _, s := range list {
		if s.InstanceID == instance {
			n++
		}
	}
	return n
}
