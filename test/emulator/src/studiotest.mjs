// A window's StudioTestService test: the edit DataModel's plugin starts it
// (ExecutePlayModeAsync / ExecuteRunModeAsync), the server DataModel ends it
// (EndTest), and whatever ends it (EndTest, or the user's Stop: stdin `stop`)
// resumes the edit DataModel's waiting call with EndTest's value (JSON) or
// nil. See test/emulator/README.md, "StudioTestService".

export class StudioTest {
  constructor(window) {
    this.window = window
    this.argsJson = undefined // GetTestArgs in the test's DataModels
    this.resultJson = undefined // EndTest's value, until the test has ended
    this.ending = false
  }

  // "" in Edit, else "play" or "run".
  state() {
    const w = this.window
    if (!w.models.has('server') && !w.models.has('client')) return ''
    return w.runMode ? 'run' : 'play'
  }

  // ExecutePlayModeAsync / ExecuteRunModeAsync: returns a refusal message,
  // or undefined once the test is starting (its DataModels start after the
  // calling Luau has yielded).
  start(mode, argsJson) {
    if (this.state() !== '' || this.starting) return 'a test session is already running'
    this.argsJson = argsJson ?? undefined
    this.resultJson = undefined
    this.starting = true
    setImmediate(async () => {
      try {
        if (mode === 'run') await this.window.run()
        else await this.window.play()
      } catch (err) {
        this.window.log(`test start failed: ${err.message}`)
        await this.window.stopPlay().catch(() => {})
      } finally {
        this.starting = false
      }
    })
    return undefined
  }

  // EndTest(value) from the server DataModel: the test ends (its
  // DataModels stop) after the calling Luau has returned.
  end(valueJson) {
    if (this.ending) return
    this.ending = true
    this.resultJson = valueJson ?? undefined
    setImmediate(async () => {
      try {
        await this.window.stopPlay()
      } finally {
        this.ending = false
      }
    })
  }

  // The test's DataModels are gone (EndTest or the user's Stop): the edit
  // DataModel's Execute*Async calls return.
  ended() {
    const value = this.resultJson
    this.resultJson = undefined
    this.argsJson = undefined
    const edit = this.window.models.get('edit')
    if (edit) edit.push('test-end', 0, value)
  }
}
