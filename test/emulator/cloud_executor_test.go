package emulator_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/studio-bridge/studio-bridge/cloud/cloudtest"
	"github.com/studio-bridge/studio-bridge/test/kit"
)

// luauExecutor is the Open Cloud stand-in's cloudtest.Executor that really
// runs each task's script: in the emulator's Luau runtime, in a fresh
// server DataModel holding the Rojo project's place (bin/cloud-task.mjs),
// with game.PlaceVersion the version the task runs. It keeps a pool of
// long-lived Node workers (starting one costs a wasm compile), each running
// any number of tasks at once; a task goes to the least busy worker, a new
// one while the pool is below its size.
type luauExecutor struct {
	tb      testing.TB
	project string
	size    int
	env     []string // the workers' environment (kit.ChildEnv, made on the test's goroutine)

	mu      sync.Mutex
	workers []*taskWorker
	nextID  int
}

// newLuauExecutor starts no worker yet; the test's cleanup stops them
// (register it before the stand-in's Close, which ends running tasks).
func newLuauExecutor(tb testing.TB, project string) *luauExecutor {
	tb.Helper()
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	e := &luauExecutor{tb: tb, project: project, size: max(2, runtime.NumCPU()), env: kit.ChildEnv(tb)}
	tb.Cleanup(e.close)
	return e
}

// taskWorker is one bin/cloud-task.mjs process.
type taskWorker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *tailBuffer
	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan cloudtest.Outcome
	dead    error // set when its stdout ended
	exited  chan struct{}
}

// workerAnswer is one line a worker prints.
type workerAnswer struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Results []any  `json:"results"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Logs []struct {
		MessageType string `json:"messageType"`
		Message     string `json:"message"`
	} `json:"logs"`
}

// maxAnswer bounds one answer line: 4 MB of results and 450 KB of logs,
// JSON-escaped.
const maxAnswer = 16 << 20

func (e *luauExecutor) start() (*taskWorker, error) {
	cmd := exec.Command(nodePath, filepath.Join(emulatorD, "bin", "cloud-task.mjs"), "--project", e.project)
	cmd.Dir = emulatorD
	cmd.Env = e.env
	w := &taskWorker{cmd: cmd, stderr: &tailBuffer{max: 64 << 10}, pending: map[string]chan cloudtest.Outcome{}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	var err error
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go w.read(stdout)
	return w, nil
}

// read delivers the worker's answers until its stdout ends, then fails
// what is still pending.
func (w *taskWorker) read(stdout io.Reader) {
	defer close(w.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), maxAnswer)
	for sc.Scan() {
		var a workerAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			continue // not an answer (the worker prints nothing else)
		}
		out := cloudtest.Outcome{State: a.State, Results: a.Results}
		if a.Error != nil {
			out.Code, out.Message = a.Error.Code, a.Error.Message
		}
		for _, l := range a.Logs {
			out.Logs = append(out.Logs, l.MessageType+": "+l.Message)
		}
		w.mu.Lock()
		ch := w.pending[a.ID]
		delete(w.pending, a.ID)
		w.mu.Unlock()
		if ch != nil {
			ch <- out
		}
	}
	_ = w.cmd.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dead = fmt.Errorf("the cloud-task worker exited (%v): %s", errors.Join(sc.Err(), errExit(w.cmd)), w.stderr.String())
	for id, ch := range w.pending {
		ch <- cloudtest.Outcome{State: "FAILED", Code: "INTERNAL_ERROR", Message: w.dead.Error()}
		delete(w.pending, id)
	}
}

func errExit(cmd *exec.Cmd) error {
	if cmd.ProcessState == nil {
		return nil
	}
	return errors.New(cmd.ProcessState.String())
}

func (w *taskWorker) send(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_, err = w.stdin.Write(append(line, '\n'))
	return err
}

// pick is the least busy worker, or a new one while the pool has room;
// the task (its answer channel) is pending on it already.
func (e *luauExecutor) pick() (*taskWorker, string, chan cloudtest.Outcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextID++
	id := strconv.Itoa(e.nextID)
	var best *taskWorker
	bestLoad := 0
	for _, w := range e.workers {
		w.mu.Lock()
		load, dead := len(w.pending), w.dead
		w.mu.Unlock()
		if dead == nil && (best == nil || load < bestLoad) {
			best, bestLoad = w, load
		}
	}
	if best == nil || (bestLoad > 0 && len(e.workers) < e.size) {
		w, err := e.start()
		if err != nil {
			return nil, "", nil, fmt.Errorf("start bin/cloud-task.mjs: %w", err)
		}
		e.workers = append(e.workers, w)
		best = w
	}
	ch := make(chan cloudtest.Outcome, 1)
	best.mu.Lock()
	defer best.mu.Unlock()
	if best.dead != nil {
		return nil, "", nil, best.dead
	}
	best.pending[id] = ch
	return best, id, ch, nil
}

// Execute runs job on a worker.
func (e *luauExecutor) Execute(ctx context.Context, job cloudtest.Job) cloudtest.Outcome {
	w, id, ch, err := e.pick()
	if err != nil {
		return cloudtest.Outcome{State: "FAILED", Code: "INTERNAL_ERROR", Message: err.Error()}
	}
	req := map[string]any{"id": id, "script": job.Script, "placeVersion": job.Version, "timeoutMs": job.Timeout.Milliseconds()}
	if err := w.send(req); err != nil {
		w.mu.Lock()
		delete(w.pending, id)
		w.mu.Unlock()
		return cloudtest.Outcome{State: "FAILED", Code: "INTERNAL_ERROR", Message: "send the task to bin/cloud-task.mjs: " + err.Error()}
	}
	select {
	case out := <-ch:
		return out
	case <-ctx.Done():
	}
	// the task's timeout or the server closing: the worker stops the
	// DataModel and answers CANCELLED (the stand-in decides the end)
	_ = w.send(map[string]any{"cancel": id})
	select {
	case out := <-ch:
		return out
	case <-time.After(10 * time.Second):
		return cloudtest.Outcome{State: "CANCELLED"}
	}
}

// prestart boots n workers with a trivial task each, so a measurement
// does not include their start.
func (e *luauExecutor) prestart(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := e.Execute(context.Background(), cloudtest.Job{Script: "return 1", Timeout: time.Minute})
			if out.State != "COMPLETE" {
				e.tb.Errorf("a worker's first task: %+v", out)
			}
		}()
	}
	wg.Wait()
}

// close ends every worker: stdin closed, it stops its tasks and exits;
// one that does not within 10 s is killed.
func (e *luauExecutor) close() {
	e.mu.Lock()
	workers := e.workers
	e.workers = nil
	e.mu.Unlock()
	for _, w := range workers {
		_ = w.stdin.Close()
	}
	for _, w := range workers {
		select {
		case <-w.exited:
		case <-time.After(10 * time.Second):
			_ = w.cmd.Process.Kill()
			<-w.exited
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append([]byte(nil), t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
