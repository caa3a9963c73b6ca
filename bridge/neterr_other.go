//go:build !windows

package bridge

import (
	"errors"
	"syscall"
)

// isAddrInUse reports whether a listen failed because the port is taken.
func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// isConnRefused reports whether a dial found nothing listening.
func isConnRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
