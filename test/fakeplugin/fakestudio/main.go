package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/studio-bridge/studio-bridge/authtoken"
	"github.com/studio-bridge/studio-bridge/test/fakeplugin"
)

func main() {
	port, err := strconv.Atoi(os.Getenv("STUDIO_BRIDGE_PORT"))
	if err != nil {
		os.Stderr.WriteString("fakestudio: STUDIO_BRIDGE_PORT must be set\n")
		os.Exit(2)
	}
	place := "Baseplate"
	if len(os.Args) > 1 {
		place = strings.TrimSuffix(filepath.Base(os.Args[1]), filepath.Ext(os.Args[1]))
	}
	// Paired as install-plugin would pair it: the key of the token of the
	// config directory its environment names.
	tok, err := authtoken.Resolve()
	if err != nil {
		os.Stderr.WriteString("fakestudio: " + err.Error() + "\n")
		os.Exit(2)
	}
	p := fakeplugin.Start(fakeplugin.Config{Port: port, Key: tok.PairingKey(), InstanceID: "fakestudio-" + strconv.Itoa(os.Getpid()),
		PlaceName: place, Handler: fakeplugin.Studio, RetryDelays: []time.Duration{100 * time.Millisecond}})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	p.Close()
}
