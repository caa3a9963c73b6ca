package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestHTTPAndWebSocket: an http.Server on a Listener answers the
// listener's HTTP client, a WebSocket upgrade works over it both ways, and
// a closed listener refuses dials.
func TestHTTPAndWebSocket(t *testing.T) {
	t.Parallel()
	l := Listen()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hi from "+r.Host)
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		typ, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		_ = c.Write(r.Context(), typ, append([]byte("echo "), msg...))
		_, _, _ = c.Read(r.Context()) // until the client closes
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := l.HTTPClient()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.URL()+"/hello", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hi from "+l.Addr().String() {
		t.Fatalf("GET /hello: %q", body)
	}

	c, _, err := websocket.Dial(ctx, "ws://"+l.Addr().String()+"/ws", &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c.Read(ctx); err != nil || string(msg) != "echo ping" {
		t.Fatalf("echo: %q, %v", msg, err)
	}
	if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
		t.Fatal(err)
	}

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := l.Dial(ctx, "tcp", l.Addr().String()); !errors.Is(err, ErrRefused) {
		t.Fatalf("dial after close: %v, want ErrRefused", err)
	}
}

// TestDialWaitsForAcceptUntilCancelled: nobody accepting holds a dial only
// as long as its context.
func TestDialWaitsForAcceptUntilCancelled(t *testing.T) {
	t.Parallel()
	l := Listen()
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := l.Dial(ctx, "tcp", "")
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("dial with nobody accepting, cancelled: %v", err)
	}
	if a, b := Listen(), Listen(); a.Port() == b.Port() {
		t.Fatalf("two listeners share port %d", a.Port())
	}
}

// TestBothEndsWriteBeforeReading: as over TCP, two peers that both write
// before reading do not deadlock (a bare net.Pipe would), and what was
// written before Close still arrives, then EOF.
func TestBothEndsWriteBeforeReading(t *testing.T) {
	t.Parallel()
	l := Listen()
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	client, err := l.Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if _, err := client.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Write([]byte("reject")); err != nil {
		t.Fatal(err)
	}
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(client)
	if err != nil || string(got) != "reject" {
		t.Fatalf("client read %q, %v; want the frame written before Close, then EOF", got, err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Write([]byte("more")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
}
