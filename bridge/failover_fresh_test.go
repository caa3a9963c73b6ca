package bridge

import (
	"context"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// freshGrace is a grace long enough that a test can tell "waited for the
// lost host's sessions" from "waited out the grace".
const freshGrace = time.Hour

// cutShort bounds a wait the grace must not be in: far below freshGrace,
// far above any machine's time to answer, so only a grace waited out
// trips it.
const cutShort = time.Minute

// killWithTwoSessions runs a host with two plugins, kills it and returns
// the sessions' ids. The plugins retry every 50 ms.
func killWithTwoSessions(t *testing.T, port int, standbys ...Options) ([]string, []*Bridge) {
	t.Helper()
	host := connect(t, port)
	var bs []*Bridge
	for _, o := range standbys {
		bs = append(bs, connectWith(t, port, o))
	}
	retry := []time.Duration{50 * time.Millisecond}
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "A", RetryDelays: retry})
	kit.Plugin(t, fakeplugin.Config{Port: port, InstanceID: "B", RetryDelays: retry})
	s := waitSessions(t, host, 2)
	for _, b := range bs {
		kit.WaitFor(t, 10*time.Second, "the standby to list both sessions", func() bool { return len(b.hub.ids()) == 2 })
	}
	host.Kill()
	return []string{s[0].SessionID, s[1].SessionID}, bs
}

// sessionsBeforeGrace calls b.Sessions and fails t unless it lists want
// well before freshGrace would have ended (within cutShort).
func sessionsBeforeGrace(t *testing.T, b *Bridge, want []string, _ time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cutShort)
	defer cancel()
	s, err := b.Sessions(ctx)
	if err != nil {
		t.Fatalf("Sessions: %v (after %s: it waited out the %s grace instead of for the lost host's sessions)", err, cutShort, freshGrace)
	}
	var got []string
	for _, x := range s {
		got = append(got, x.SessionID)
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("Sessions listed %v, want %v", got, want)
	}
}

// TestFreshClientAfterFailoverWaitsOnlyForMissingSessions: a process that
// joins the host that took over (it never knew the lost host) is told which
// sessions are still missing and stops waiting when they are back.
func TestFreshClientAfterFailoverWaitsOnlyForMissingSessions(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	ids, bs := killWithTwoSessions(t, port, Options{Grace: freshGrace})
	killed := time.Now()
	standby := bs[0]
	kit.WaitFor(t, 10*time.Second, "the standby to take over", func() bool { return standby.Role() == RoleHost })

	fresh := connectWith(t, port, Options{Grace: freshGrace})
	if fresh.Role() != RoleClient {
		t.Fatalf("the fresh process is %s, want a client", fresh.Role())
	}
	sessionsBeforeGrace(t, fresh, ids, killed)

	// Once all are back, a joiner is told the list is settled.
	later := connectWith(t, port, Options{Grace: freshGrace})
	l, ok := later.cur.(*link)
	if !ok || !l.settled || len(l.awaiting) != 0 {
		t.Fatalf("welcome after every session returned: settled %v, awaiting %v", ok && l.settled, l.awaiting)
	}
}

// TestFreshHostLearnsTheLostSessionsFromARejoiningClient: a process started
// right after the kill may win the port itself, knowing nothing of the lost
// host; the standby that then joins it names the lost host's sessions in
// its client-hello, and the fresh host's resolution ends once they are back.
func TestFreshHostLearnsTheLostSessionsFromARejoiningClient(t *testing.T) {
	t.Parallel()
	port := kit.FreePort(t)
	ids, _ := killWithTwoSessions(t, port)
	killed := time.Now()
	fresh := connectWith(t, port, Options{Grace: freshGrace})
	if fresh.Role() != RoleHost {
		t.Fatalf("the fresh process is %s, want the host", fresh.Role())
	}
	got := make(chan error, 1)
	go func() {
		_, err := fresh.Sessions(context.Background())
		got <- err
	}()
	// The standby rejoining: its hello names the lost host's sessions.
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := dialLink(ctx, addr, nil, "1.0.0", kit.Token(t), testLog(t), 0, newHub(testLog(t)), ids)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { l.shut(1000, "done"); <-l.lost }()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(cutShort):
		t.Fatalf("Sessions on the fresh host still waiting %s after the kill", cutShort)
	}
	sessionsBeforeGrace(t, fresh, ids, killed)
}

// TestWelcomeAwaitingLists: the welcome names exactly the expected sessions
// still missing, then says settled; a host with nothing expected says
// neither, and one past its grace takes no list from a hello.
func TestWelcomeAwaitingLists(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := NewHost(HostConfig{Listener: ln, Log: testLog(t), Token: kit.Token(t), Grace: freshGrace, Awaiting: []string{"gone-1", "gone-2"}})
	defer h.Kill()
	h.mu.Lock()
	missing, settled := h.awaitingLocked()
	h.mu.Unlock()
	slices.Sort(missing)
	if settled || !slices.Equal(missing, []string{"gone-1", "gone-2"}) {
		t.Fatalf("with none back: missing %v, settled %v", missing, settled)
	}
	h.hub.apply(protocol.SessionConnected, protocol.SessionInfo{SessionID: "gone-1"})
	h.hub.apply(protocol.SessionConnected, protocol.SessionInfo{SessionID: "gone-2"})
	h.mu.Lock()
	missing, settled = h.awaitingLocked()
	h.mu.Unlock()
	if !settled || len(missing) != 0 {
		t.Fatalf("with all back: missing %v, settled %v", missing, settled)
	}

	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	old := NewHost(HostConfig{Listener: ln2, Log: testLog(t), Token: kit.Token(t)}) // no grace: never young
	defer old.Kill()
	old.mu.Lock()
	old.expectLocked([]string{"x"})
	missing, settled = old.awaitingLocked()
	old.mu.Unlock()
	if settled || missing != nil {
		t.Fatalf("a host past its grace took a returning list: missing %v, settled %v", missing, settled)
	}
}
