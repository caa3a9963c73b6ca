package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/semaphore"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// Memory bounds of what the host reads (PROTOCOL.md section 4): a first
// frame past HelloFreeBytes reserves PreHandshakeMaxFrameBytes of the
// handshake budget while it arrives; a later frame past LargeFrameBytes
// reserves its endpoint's frame limit of its endpoint's frame budget until
// it is decoded and handled. Nothing is reserved for small frames, so
// ordinary traffic (a real hello included) never waits. Every body must
// arrive within a deadline once its header has (budgets.go), and every wait
// for a budget ends: a peer can hold a reservation only briefly.

// readFirstFrame reads a connection's first frame within its handshake:
// at most PreHandshakeMaxFrameBytes (the socket's read limit, set by
// accept). Its first HelloFreeBytes are read freely; a longer frame then
// reserves PreHandshakeMaxFrameBytes of budget while the rest arrives. Once
// the header has arrived the whole frame must within bodyTimeout, or the
// socket is closed with 1008: a stalled first frame holds the budget no
// longer than that. The read ends with ctx (ending it drops the socket);
// the wait for the budget ends with wait too.
func readFirstFrame(ctx, wait context.Context, c *websocket.Conn, budget *semaphore.Weighted, bodyTimeout time.Duration) (websocket.MessageType, []byte, error) {
	typ, r, err := c.Reader(ctx)
	if err != nil {
		return 0, nil, err
	}
	slow := make(chan struct{})
	timer := time.AfterFunc(bodyTimeout, func() {
		defer close(slow)
		_ = c.Close(closeBodyTooSlow, fmt.Sprintf("the first frame did not arrive within %s of its header", bodyTimeout))
	})
	defer func() {
		if !timer.Stop() {
			<-slow
		}
	}()
	var head bytes.Buffer
	if _, err := head.ReadFrom(io.LimitReader(r, protocol.HelloFreeBytes+1)); err != nil {
		return 0, nil, err
	}
	if head.Len() <= protocol.HelloFreeBytes {
		return typ, head.Bytes(), nil
	}
	if err := budget.Acquire(wait, protocol.PreHandshakeMaxFrameBytes); err != nil {
		return 0, nil, err
	}
	defer budget.Release(protocol.PreHandshakeMaxFrameBytes)
	if _, err := head.ReadFrom(r); err != nil {
		return 0, nil, err
	}
	return typ, head.Bytes(), nil
}

// readFrame reads the peer's next frame. The first LargeFrameBytes are read
// freely; a longer frame first reserves the peer's frame limit in its
// budget (when it has one: the host's peers do), and release gives it back
// once the frame has been handled. Once the header has arrived the body
// must within its deadline (budgets.bodyDeadline, the wait for the budget
// aside), or the peer is closed with 1008; a wait for the budget that
// outlasts budgetWait closes it with 1013. While it waits for the budget
// the peer counts as alive: the wait is the host's doing, not the peer's.
func (p *peer) readFrame() (typ websocket.MessageType, data []byte, release func(), err error) {
	release = func() {}
	typ, r, err := p.conn.Reader(context.Background())
	if err != nil {
		return 0, nil, release, err
	}
	p.lastSeen.Store(time.Now().UnixNano())
	stop := p.bodyDeadline(0)
	var head bytes.Buffer
	_, err = head.ReadFrom(io.LimitReader(r, protocol.LargeFrameBytes+1))
	if !stop() && err == nil {
		err = errBodyTooSlow
	}
	if err != nil {
		return 0, nil, release, err
	}
	if head.Len() <= protocol.LargeFrameBytes {
		return typ, head.Bytes(), release, nil
	}
	reserved := false
	if p.budget != nil {
		if err := p.reserve(); err != nil {
			return 0, nil, release, err
		}
		reserved = true
	}
	stop = p.bodyDeadline(p.readLimit)
	data, err = readRest(head.Bytes(), r)
	if !stop() && err == nil {
		err = errBodyTooSlow
	}
	if reserved {
		size := len(data)
		release = func() { p.releaseLarge(size) }
	}
	if err != nil {
		release()
		return 0, nil, func() {}, err
	}
	return typ, data, release, nil
}

// errBodyTooSlow ends a read whose body missed its deadline.
var errBodyTooSlow = errors.New("frame body did not arrive in time")

// bodyDeadline closes the peer with 1008 unless the returned stop is called
// within the deadline of a body that reserved reserved bytes; stop reports
// whether it came in time. A peer without limits (a client's link to its
// host) has no deadline.
func (p *peer) bodyDeadline(reserved int64) (stop func() bool) {
	if p.limits == nil {
		return func() bool { return true }
	}
	d := p.limits.bodyDeadline(reserved)
	t := time.AfterFunc(d, func() {
		p.log.Info("closing peer: a frame's body stalled", "within", d)
		p.shut(closeBodyTooSlow, fmt.Sprintf("frame body did not arrive within %s of its header", d))
	})
	return t.Stop
}

// returnToOSBytes is the frame size from which releasing a frame also
// returns its memory to the operating system: only frames that large
// (client frames, never a plugin's 1 MiB ones) are worth a forced
// collection.
const returnToOSBytes = 8 << 20

// readRest reads the rest of a large frame after head. It reads in pieces
// of a fixed size and joins them once, so a frame costs about twice its
// size while it is read, never the four times or more that doubling a
// buffer's capacity can take.
func readRest(head []byte, r io.Reader) ([]byte, error) {
	const piece = 1 << 20
	pieces := [][]byte{head}
	total := len(head)
	for {
		buf := make([]byte, piece)
		n, err := io.ReadFull(r, buf)
		pieces = append(pieces, buf[:n])
		total += n
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	data := make([]byte, 0, total)
	for _, p := range pieces {
		data = append(data, p...)
	}
	return data, nil
}

// releaseLarge gives a large frame's reservation back once the frame is
// handled (the reader holds it no more). Before that, for a frame of
// returnToOSBytes or more, it hands the frame's memory back to the
// operating system, so that the bytes the budget bounds are the bytes the
// process holds, not what the garbage collector has yet to collect: a
// forced collection costs a few milliseconds, against the tens it takes to
// receive a frame this large.
func (p *peer) releaseLarge(size int) {
	if size >= returnToOSBytes {
		debug.FreeOSMemory()
	}
	p.budget.Release(p.readLimit)
}

// errPeerGone ends a wait for the frame budget when the peer closes.
var errPeerGone = errors.New("connection closed while waiting for the frame budget")

// errBudgetBusy ends a wait for the frame budget that lasted too long.
var errBudgetBusy = errors.New("no room in the frame budget in time")

// reserve waits for the peer's frame limit in the frame budget, at most
// budgetWait (when the peer has limits); a peer still waiting then is
// closed with 1013, so that a frame budget held by stalled peers cannot
// keep a real one waiting forever.
func (p *peer) reserve() error {
	if p.budget.TryAcquire(p.readLimit) {
		return nil
	}
	p.budgetWait.Store(true)
	defer func() {
		p.budgetWait.Store(false)
		p.lastSeen.Store(time.Now().UnixNano())
	}()
	ctx, cancel := context.WithCancel(context.Background())
	if p.limits != nil {
		ctx, cancel = context.WithTimeout(context.Background(), p.limits.budgetWait)
	}
	defer cancel()
	go func() {
		select {
		case <-p.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := p.budget.Acquire(ctx, p.readLimit); err != nil {
		select {
		case <-p.closed:
			return fmt.Errorf("%w: %w", errPeerGone, err)
		default:
		}
		p.log.Warn("closing peer: the host's frame budget stayed full", "waited", p.limits.budgetWait)
		p.shut(closeBusy, "host busy: no room for a large frame; try again later")
		return errBudgetBusy
	}
	return nil
}
