// A `studio-bridge doctor --json` report as emulator settings
// (--from-doctor FILE): what a user's real Studio reported becomes a
// reproducible emulator configuration. Only the studio.* checks map to
// switches (plugin/README.md, "How doctor checks each assumption"); a
// degradation the emulator has no switch for is listed in notReproduced so
// the caller says so rather than pretending to reproduce it.

import { readFileSync, statSync } from 'node:fs'

const STATUSES = new Set(['ok', 'degraded', 'failed', 'n/a'])
const MAX_REPORT_BYTES = 1 << 20

// What each studio.* check, when not ok, turns on. Streams: the plugin's
// own stream plus three foreign ones fill Studio's 4, which is what a
// refused extra stream shows.
const SWITCHES = {
  'studio.settings': (o) => o.faults.push('settings-nil:1'),
  'studio.streams': (o) => {
    o.foreignStreams = 3
  },
  'studio.pluginConnection': (o) => {
    o.pluginConnectionService = false
  },
  'studio.runService': (o) => {
    o.runModeClient = false
  },
  'studio.recordingInPlay': (o) => o.faults.push('recording-nil-in-play'),
  'studio.pluginsInTest': (o) => {
    o.noPluginsInTest = true
  },
  // the game's HttpEnabled off: the emulator's default (Studio's too)
  'studio.http': (o) => {
    o.httpEnabled = false
  },
}

// optionsFromDoctor maps a parsed report to emulator options:
// { faults, foreignStreams?, pluginConnectionService?, noPluginsInTest?,
//   notReproduced: [key] }. It throws on a report that is not doctor's.
export function optionsFromDoctor(report) {
  if (!report || !Array.isArray(report.checks)) throw new Error('not a studio-bridge doctor --json report: want {"checks": [...]}')
  const out = { faults: [], notReproduced: [] }
  const done = new Set()
  for (const [i, c] of report.checks.entries()) {
    if (!c || typeof c.key !== 'string' || !STATUSES.has(c.status)) {
      throw new Error(`check ${i}: want {"key": string, "status": "ok"|"degraded"|"failed"|"n/a"}`)
    }
    if (!c.key.startsWith('studio.') || c.status === 'ok' || c.status === 'n/a' || done.has(c.key)) continue
    done.add(c.key) // several windows: one switch per key
    const apply = SWITCHES[c.key]
    if (apply) apply(out)
    else out.notReproduced.push(c.key)
  }
  return out
}

// readDoctorReport reads and maps FILE, bounded in size before parsing.
export function readDoctorReport(path) {
  const size = statSync(path).size
  if (size > MAX_REPORT_BYTES) throw new Error(`${path}: ${size} bytes; a doctor report is at most ${MAX_REPORT_BYTES}`)
  let report
  try {
    report = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new Error(`${path}: not JSON (${err.message})`)
  }
  return optionsFromDoctor(report)
}
