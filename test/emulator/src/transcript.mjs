// Reads the recorded plugin conversations (protocol/testdata/transcripts/
// *.txtar; the format is package protocol/transcript's, which parses the
// same files in Go): free text with "key: value" settings, then sections
// "-- plugin --" and "-- host --" of one JSON frame per line. Frames are
// compared as JSON values; heartbeats (ping, pong) are not recorded. A
// "-- lost --" section is frames the plugin sends that never reach the host:
// the socket drops after them and the plugin connects again.

import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

export const MAX_BYTES = 1 << 20

// parse returns { name, comment, settings, steps: [{ from, frames: [{ raw, value, line, type }] }] }.
export function parse(name, text) {
  if (Buffer.byteLength(text) > MAX_BYTES) throw new Error(`${name}: larger than ${MAX_BYTES} bytes`)
  const t = { name, comment: '', settings: {}, steps: [] }
  const comment = []
  let cur = null
  text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .forEach((line, i) => {
      const n = i + 1
      const m = /^-- (.+) --$/.exec(line)
      if (m) {
        const side = m[1].trim()
        if (side !== 'plugin' && side !== 'host' && side !== 'lost') throw new Error(`${name}:${n}: section "${side}": want "plugin", "host" or "lost"`)
        cur = { from: side, frames: [] }
        t.steps.push(cur)
        return
      }
      if (!cur) {
        comment.push(line)
        const kv = /^([^\s:]+): (.*)$/.exec(line)
        if (kv) t.settings[kv[1]] = kv[2].trim()
        return
      }
      const trimmed = line.trim()
      if (trimmed === '' || trimmed.startsWith('#')) return
      let value
      try {
        value = JSON.parse(trimmed)
      } catch (e) {
        throw new Error(`${name}:${n}: not one JSON frame: ${e.message}`)
      }
      if (typeof value?.type !== 'string' || value.type === '') throw new Error(`${name}:${n}: the frame has no "type"`)
      cur.frames.push({ raw: trimmed, value, line: n, type: value.type })
    })
  if (t.steps.length === 0) throw new Error(`${name}: no sections (-- plugin -- / -- host --)`)
  for (const s of t.steps) if (s.frames.length === 0) throw new Error(`${name}: an empty ${s.from} section`)
  t.comment = comment.join('\n').trim()
  return t
}

// load parses every *.txtar file in dir, sorted by name.
export function load(dir) {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txtar'))
    .sort()
  if (files.length === 0) throw new Error(`no transcripts (*.txtar) in ${dir}`)
  return files.map((f) => parse(f, readFileSync(path.join(dir, f), 'utf8')))
}

export function heartbeat(frame) {
  return frame?.type === 'ping' || frame?.type === 'pong'
}

// diff is '' for equal JSON values, else the first path where they differ.
export function diff(want, got, at = '$') {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${at}: want an array, got ${JSON.stringify(got)}`
    if (want.length !== got.length) return `${at}: want ${want.length} elements, got ${got.length}`
    for (let i = 0; i < want.length; i++) {
      const d = diff(want[i], got[i], `${at}[${i}]`)
      if (d) return d
    }
    return ''
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${at}: want an object, got ${JSON.stringify(got)}`
    const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort()
    for (const k of keys) {
      if (!(k in got)) return `${at}.${k}: missing`
      if (!(k in want)) return `${at}.${k}: not expected (got ${JSON.stringify(got[k]).slice(0, 120)})`
      const d = diff(want[k], got[k], `${at}.${k}`)
      if (d) return d
    }
    return ''
  }
  if (want !== got) return `${at}: want ${JSON.stringify(want)?.slice(0, 120)}, got ${JSON.stringify(got)?.slice(0, 120)}`
  return ''
}
