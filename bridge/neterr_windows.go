package bridge

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isAddrInUse reports whether a listen failed because the port is taken.
// Windows reports WSAEADDRINUSE, which Go does not map to syscall.EADDRINUSE.
func isAddrInUse(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }

// isConnRefused reports whether a dial found nothing listening.
func isConnRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
