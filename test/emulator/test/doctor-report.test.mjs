// --from-doctor: a doctor report's studio.* degradations become emulator
// switches; what the emulator cannot reproduce is named, never faked.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { optionsFromDoctor, readDoctorReport } from '../src/doctor.mjs'

const check = (key, status, window) => ({ key, status, detail: 'd', fix: '', ...(window ? { window } : {}) })

test('each studio.* degradation maps to its switch; ok, n/a and local checks map to nothing', () => {
  const cases = [
    [[check('studio.settings', 'degraded')], { faults: ['settings-nil:1'], notReproduced: [] }],
    [[check('studio.streams', 'degraded')], { faults: [], foreignStreams: 3, notReproduced: [] }],
    [[check('studio.pluginConnection', 'degraded')], { faults: [], pluginConnectionService: false, notReproduced: [] }],
    [[check('studio.pluginsInTest', 'failed')], { faults: [], noPluginsInTest: true, notReproduced: [] }],
    [[check('studio.recordingInPlay', 'degraded')], { faults: ['recording-nil-in-play'], notReproduced: [] }],
    [[check('studio.runService', 'degraded')], { faults: [], runModeClient: false, notReproduced: [] }],
    [[check('studio.http', 'degraded')], { faults: [], httpEnabled: false, notReproduced: [] }],
    [[check('studio.settings', 'ok'), check('studio.pluginsInTest', 'n/a'), check('host.reachable', 'failed')], { faults: [], notReproduced: [] }],
    // two windows with the same degradation: one switch
    [[check('studio.settings', 'degraded', 'A'), check('studio.settings', 'degraded', 'B')], { faults: ['settings-nil:1'], notReproduced: [] }],
  ]
  for (const [checks, want] of cases) assert.deepEqual(optionsFromDoctor({ checks }), want, JSON.stringify(checks))
})

test('a report that is not doctor\'s is refused with what is wanted', () => {
  assert.throws(() => optionsFromDoctor({}), /doctor --json report/)
  assert.throws(() => optionsFromDoctor({ checks: [{ key: 'studio.settings', status: 'bad' }] }), /check 0: want/)
  const dir = mkdtempSync(join(tmpdir(), 'doctor-'))
  writeFileSync(join(dir, 'r.json'), '{not json')
  assert.throws(() => readDoctorReport(join(dir, 'r.json')), /not JSON/)
  writeFileSync(join(dir, 'big.json'), ' '.repeat((1 << 20) + 1))
  assert.throws(() => readDoctorReport(join(dir, 'big.json')), /at most/)
})
