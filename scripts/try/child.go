package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"
)

// child is a process try runs until the end.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	err  error         // its Wait's error, once done
}

func (c *child) start() error {
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", c.name, err)
	}
	c.done = make(chan struct{})
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	return nil
}

// stopGrace is how long a child may take to stop after Ctrl-C before it is
// killed.
const stopGrace = 15 * time.Second

// stop asks the child to stop as Ctrl-C would and waits until it has; one
// that does not within stopGrace is killed. Safe to call more than once.
func (c *child) stop() {
	if c.done == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	interrupt(c.cmd.Process)
	select {
	case <-c.done:
	case <-time.After(stopGrace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// failure is the child's exit as an error when it did not stop cleanly.
func (c *child) failure() error {
	if c.done == nil || c.err == nil {
		return nil
	}
	return fmt.Errorf("%s exited with %v", c.name, c.err)
}

// waitConnected polls the host's /health until the host (pid) has a
// session, for at most d.
func waitConnected(ctx context.Context, port, pid int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	url := fmt.Sprintf("http://127.0.0.1:%d/health", port)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			var h struct {
				PID      int `json:"pid"`
				Sessions int `json:"sessions"`
			}
			err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h)
			_ = resp.Body.Close() // a read body's Close error says nothing more
			if err == nil && h.PID == pid && h.Sessions > 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no Studio window connected to the host on port %d within %s; the messages above may say why", port, d)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
