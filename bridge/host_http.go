package bridge

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Health is the /health answer. A process on the port whose answer does not
// carry Service == protocol.ServiceName is not a studio-bridge host.
type Health struct {
	Status          string `json:"status"` // "ok" or "draining"
	Service         string `json:"service"`
	Version         string `json:"version"`
	ProtocolVersion int    `json:"protocolVersion"`
	Port            int    `json:"port"`
	Sessions        int    `json:"sessions"`
	Clients         int    `json:"clients"`
	UptimeMs        int64  `json:"uptimeMs"`
	PID             int    `json:"pid"`
}

func (h *Host) serveHealth(w http.ResponseWriter, _ *http.Request) {
	sessions, clients := h.counts()
	body := Health{
		Status:          "ok",
		Service:         protocol.ServiceName,
		Version:         h.cfg.Version,
		ProtocolVersion: protocol.Version,
		Port:            h.port,
		Sessions:        sessions,
		Clients:         clients,
		UptimeMs:        time.Since(h.started).Milliseconds(),
		PID:             os.Getpid(),
	}
	code := http.StatusOK
	if h.draining.Load() {
		body.Status, code = "draining", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// guard refuses anything a web page could send. Browsers attach Origin to
// WebSocket upgrades and cross-site requests and Sec-Fetch-* to every
// request; Studio's HttpService and WebStreamClient send neither (an
// assumption recorded in plugin/README.md). A Host header that is not a
// loopback name means DNS rebinding: a page on evil.example resolved to
// 127.0.0.1. Each refusal is logged with the header that caused it, so a
// user whose Studio is refused can report what it sent.
func guard(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, name := range []string{"Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode"} {
			if v := r.Header.Get(name); v != "" {
				log.Warn("refused a request that carries a browser header", "path", clipHost(r.URL.Path), "header", name, "value", clipHost(v),
					"upgrade", r.Header.Get("Upgrade") != "")
				http.Error(w, "studio-bridge refuses browser requests (Origin or Sec-Fetch headers present): a web page must never reach Roblox Studio", http.StatusForbidden)
				return
			}
		}
		if !loopbackHost(r.Host) {
			log.Warn("refused a request addressed to a host that is not loopback", "path", clipHost(r.URL.Path), "header", "Host", "value", clipHost(r.Host),
				"upgrade", r.Header.Get("Upgrade") != "")
			http.Error(w, "studio-bridge only answers requests addressed to a loopback host (127.0.0.1, localhost or [::1]); refusing Host "+clipHost(r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func clipHost(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
