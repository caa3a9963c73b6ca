// Replays the recorded plugin conversations (protocol/testdata/transcripts)
// against the real Luau plugin: this test plays the host, sending the
// transcript's host frames, and the plugin's frames must be the recorded
// ones (as JSON values). The same files are replayed against the Go host
// (bridge/transcript_test.go) and the Go fake plugin
// (test/fakeplugin/transcript_test.go), so the three agree on the wire.
//
// The plugin's random values are injected: GenerateGUID counts
// (AAAAAAAA-0000-4000-8000-<n>), which fixes the window's instanceId and
// the hello's nonce; the wall clock is the transcript's `clock:` setting
// where it has one; the host's values are the transcript's own.
// Heartbeats are answered and not compared.

import assert from 'node:assert/strict'
import { once } from 'node:events'
import http from 'node:http'
import path from 'node:path'
import { test } from 'node:test'
import { WebSocketServer } from 'ws'
import { pairingKey } from '../src/pairing.mjs'
import { diff, heartbeat, load, parse } from '../src/transcript.mjs'
import { REPO_ROOT, Window } from '../src/window.mjs'

const DIR = path.join(REPO_ROOT, 'protocol', 'testdata', 'transcripts')
const transcripts = load(DIR)

// How long to wait for one frame the transcript expects: a guard against a
// hang, not a speed bound.
const FRAME_WAIT_MS = 60000

const guid = (_context, n) => `AAAAAAAA-0000-4000-8000-${String(n).padStart(12, '0')}`

// A host socket the replay reads frame by frame.
function inbox(ws) {
  const frames = []
  let waiter = null
  let closed = null
  ws.on('message', (data) => {
    const text = data.toString('utf8')
    let frame
    try {
      frame = JSON.parse(text)
    } catch {
      frame = { type: '(unparseable)', raw: text }
    }
    if (frame.type === 'ping') {
      ws.send(JSON.stringify({ type: 'pong', t: frame.t, ...(frame.sessionId ? { sessionId: frame.sessionId } : {}) }))
      return
    }
    if (heartbeat(frame)) return
    frames.push(frame)
    waiter?.()
  })
  ws.on('close', (code) => {
    closed = code
    waiter?.()
  })
  return async function next(what) {
    const deadline = Date.now() + FRAME_WAIT_MS
    while (frames.length === 0) {
      if (closed !== null) throw new Error(`the plugin closed the socket (${closed}) before ${what}`)
      if (Date.now() > deadline) throw new Error(`no frame from the plugin for ${what}`)
      await new Promise((resolve) => {
        waiter = resolve
        setTimeout(resolve, 1000)
      })
      waiter = null
    }
    return frames.shift()
  }
}

function viewport(setting) {
  const m = /^(\d+)x(\d+)$/.exec(setting ?? '')
  return m ? { width: Number(m[1]), height: Number(m[2]) } : undefined
}

test('the transcript parser reads the format and refuses bad files', () => {
  const t = parse('good', 'About.\ntoken: abc\n-- plugin --\n{"type":"hello"}\n\n# a note\n-- host --\n{"type":"welcome","n":1}\n')
  assert.equal(t.settings.token, 'abc')
  assert.deepEqual(
    t.steps.map((s) => [s.from, s.frames.map((f) => [f.type, f.line])]),
    [
      ['plugin', [['hello', 4]]],
      ['host', [['welcome', 8]]],
    ],
  )
  const lost = parse('lost', '-- host --\n{"type":"request"}\n-- lost --\n{"type":"response"}\n')
  assert.deepEqual(
    lost.steps.map((s) => s.from),
    ['host', 'lost'],
  )
  for (const [text, want] of [
    ['just text\n', /no sections/],
    ['-- client --\n{"type":"x"}\n', /section "client"/],
    ['-- host --\n{nope}\n', /b:2: not one JSON frame/],
    ['-- host --\n{"id":"1"}\n', /no "type"/],
    ['-- host --\n-- plugin --\n{"type":"a"}\n', /empty host section/],
  ]) {
    assert.throws(() => parse('b', text), want)
  }
  assert.equal(diff({ a: 1, b: [true, null] }, { b: [true, null], a: 1 }), '')
  assert.match(diff({ a: 1 }, {}), /\$\.a: missing/)
  assert.match(diff({}, { z: 'x' }), /\$\.z: not expected/)
  assert.match(diff({ a: { b: 'x' } }, { a: { b: 'y' } }), /\$\.a\.b: want "x", got "y"/)
})

for (const t of transcripts) {
  test(`transcript ${t.name}`, async () => {
    assert.ok(t.settings.token, 'the transcript names its token')
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === '/health' ? 200 : 404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ status: 'ok', service: 'studio-bridge', version: '0.0.0-transcript', protocolVersion: 2 }))
    })
    const wss = new WebSocketServer({ noServer: true })
    const sockets = []
    // the plugin's connections in turn: a "lost" section drops one and the
    // plugin connects again
    const waiting = []
    let accepted = null
    const connected = () =>
      waiting.length > 0
        ? Promise.resolve(waiting.shift())
        : new Promise((resolve, reject) => {
            // a guard against a plugin that never connects, not a speed bound
            const guard = setTimeout(() => reject(new Error('the plugin did not connect')), FRAME_WAIT_MS)
            accepted = (ws) => {
              clearTimeout(guard)
              resolve(ws)
            }
          })
    server.on('upgrade', (req, socket, head) => {
      if (req.url !== '/plugin') return socket.destroy()
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.push(ws)
        if (accepted) {
          const resolve = accepted
          accepted = null
          resolve(ws)
        } else waiting.push(ws)
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const window = new Window({
      port: server.address().port,
      quiet: true,
      pairing: { key: pairingKey(t.settings.token), port: 0 },
      guid,
      viewport: viewport(t.settings.viewport),
      // the wall clock, where the transcript records times (log timestamps)
      clock: t.settings.clock ? () => Number(t.settings.clock) : undefined,
      onFatal: (m) => {
        throw new Error(m)
      },
    })
    try {
      await window.start(['edit'])
      let ws = await connected()
      let next = inbox(ws)
      for (const step of t.steps) {
        for (const f of step.frames) {
          if (step.from === 'host') {
            ws.send(f.raw)
            continue
          }
          const got = await next(`line ${f.line} (${f.type})`)
          const d = diff(f.value, got)
          assert.equal(d, '', `${t.name}:${f.line}: the plugin's ${f.type} differs: ${d}\n want ${f.raw}\n  got ${JSON.stringify(got)}`)
        }
        if (step.from === 'lost') {
          // the host never read them: the socket drops, the plugin resumes
          ws.terminate()
          ws = await connected()
          next = inbox(ws)
        }
      }
    } finally {
      await window.shutdown()
      for (const s of sockets) s.terminate()
      wss.close()
      server.closeAllConnections?.()
      await new Promise((r) => server.close(r))
    }
  })
}
