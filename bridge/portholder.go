package bridge

import (
	"context"
	"errors"
	"net"
	"strconv"
)

// HolderKind says what holds a bridge port.
type HolderKind string

// What WhoHolds can find on a port.
const (
	// HolderNone: nothing listens; the next command becomes the host.
	HolderNone HolderKind = "none"
	// HolderHost: a studio-bridge host answers /health ("ok").
	HolderHost HolderKind = "host"
	// HolderDraining: a studio-bridge host answers but is handing over.
	HolderDraining HolderKind = "draining"
	// HolderStopped: the host file names a live studio-bridge process that
	// holds the port and does not answer (stopped or hung).
	HolderStopped HolderKind = "stopped"
	// HolderStranger: another program holds the port.
	HolderStranger HolderKind = "stranger"
	// HolderUnknown: the probe ended before it could tell (ctx ended).
	HolderUnknown HolderKind = "unknown"
)

// PortHolder is who holds a loopback port, as WhoHolds found it.
type PortHolder struct {
	Kind HolderKind
	// Health is the host's answer (HolderHost, HolderDraining).
	Health Health
	// PID is the stopped host's process (HolderStopped).
	PID int
	// Detail is what the probe saw, for messages (HolderStranger,
	// HolderStopped, and errors the probe could not classify).
	Detail string
}

// WhoHolds asks who holds 127.0.0.1:port without binding it or joining
// anything: a studio-bridge host (its /health answer), one that is stopped
// (named by the host file in configDir, "" for none), another program, or
// nothing. It is the one place that answers "who holds port P" for doctor
// (a client that fails the host's proof names the process the same way,
// ProcessOnPort). The probe is bounded (1 s).
func WhoHolds(ctx context.Context, configDir string, port int) PortHolder {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	h, err := probeHealth(ctx, addr, nil)
	switch {
	case err == nil && h.Status == "ok":
		return PortHolder{Kind: HolderHost, Health: h}
	case err == nil:
		return PortHolder{Kind: HolderDraining, Health: h}
	case isConnRefused(err):
		return PortHolder{Kind: HolderNone}
	case errors.Is(err, errSilent):
		var stopped *HostNotAnsweringError
		if e := notAnswering(configDir, addr, err); errors.As(e, &stopped) {
			return PortHolder{Kind: HolderStopped, PID: stopped.PID, Detail: err.Error()}
		}
		return stranger(port, err)
	case errors.Is(err, errStranger):
		return stranger(port, err)
	case ctx.Err() != nil:
		return PortHolder{Kind: HolderUnknown, Detail: err.Error()}
	}
	return stranger(port, err)
}

// stranger is another program on the port, named where the OS says which
// (ProcessOnPort).
func stranger(port int, err error) PortHolder {
	h := PortHolder{Kind: HolderStranger, Detail: err.Error()}
	if p, ok := ProcessOnPort(strconv.Itoa(port)); ok {
		h.Detail += "; held by " + p.String()
	}
	return h
}
