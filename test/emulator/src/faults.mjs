// Fault modes (--fault, repeatable; also `fault <spec>` on stdin):
//
//   drop:<action>[:always]     when a request for <action> arrives, deliver it,
//                              then drop the socket abruptly (no close frame)
//                              20 ms later: the plugin is mid-request
//   stall:<action>:<seconds>   when a request for <action> arrives, freeze
//                              that DataModel (no Luau runs, nothing answers,
//                              not even pings) for <seconds>
//   refuse-stream[:<n>]        the next n (default: every)
//                              HttpService:CreateWebStreamClient calls fail
//   log-flood:<lines/s>        print numbered lines continuously in every
//                              DataModel ("flood <n>")
//   screenshot:timeout         CaptureScreenshot never calls back
//   screenshot:error           CreateEditableImageAsync fails
//   screenshot:denied          the user refuses StudioCaptureService's
//                              screenshot permission
//   image-budget               CreateEditableImageAsync returns nil (the
//                              editable image memory budget is spent)
//   settings-nil:<rate>[:<key>] Plugin:GetSetting returns nil at that rate
//                              (0..1), whatever is stored; only for <key>
//                              when given
//   error-and-closed           one WebStreamClient failure fires Error and then
//                              Closed (issue 25 item 9)
//   close-drops-sends          WebStreamClient:Send hands its frame over a turn
//                              later, and a Close() before then loses it (a
//                              goodbye sent just before Close never arrives)
//   play-fail-late             StudioTestService:ExecutePlayModeAsync / RunMode
//                              yield, then fail without starting a test
//   capture-png                StudioCaptureService:CaptureScreenshot without a
//                              Format gives a PNG buffer (BufferFormat PNG)
//                              instead of the documented RGBA8 default
//   recording-nil-in-play      ChangeHistoryService:TryBeginRecording returns
//                              nil in the edit DataModel while a playtest
//                              runs (issue 25 item 5; opt-in: not found in
//                              the stored engine reference)
//   undo-destroyed             undo cannot bring back an instance the undone
//                              step destroyed (its Parent stays locked; a
//                              live report, issue 25 item 5; opt-in:
//                              contested); the rest of the step is undone
//   http-denied                the user denied the plugin's HTTP permission
//                              prompt: every RequestAsync and
//                              CreateWebStreamClient fails
//   pc-drop-unbound            a PluginConnection message that arrives while
//                              the plugin has no callback bound is dropped,
//                              not buffered (the reference says it is
//                              buffered until the first bind)
//   pc-bind-fail[:<ctx>[:<n>]] the next n (default 1) PluginConnection
//                              BindToMessage calls in DataModel <ctx> (edit,
//                              server, client; default any) raise, as when an
//                              earlier copy of the plugin left its binding
//                              behind
//   script-locked:<path>[:<reason>] the script at <path> (its full name,
//                              e.g. ServerScriptService.Main) refuses every
//                              change: UpdateSourceAsync and Source
//                              assignment raise, as for a script another
//                              Team Create collaborator holds
//
// "*" as <action> matches every action.

export function parseFault(spec) {
  const parts = String(spec).split(':')
  const kind = parts[0]
  switch (kind) {
    case 'drop':
      if (!parts[1]) throw new Error(`fault ${spec}: want drop:<action>[:always]`)
      return { kind, action: parts[1], always: parts[2] === 'always' }
    case 'stall': {
      const seconds = Number(parts[2])
      if (!parts[1] || !(seconds > 0)) throw new Error(`fault ${spec}: want stall:<action>:<seconds>`)
      return { kind, action: parts[1], seconds }
    }
    case 'refuse-stream': {
      const n = parts[1] === undefined ? Infinity : Number(parts[1])
      if (!(n >= 0)) throw new Error(`fault ${spec}: want refuse-stream[:<n>]`)
      return { kind, remaining: n }
    }
    case 'log-flood': {
      const rate = Number(parts[1])
      if (!(rate > 0)) throw new Error(`fault ${spec}: want log-flood:<lines per second>`)
      return { kind, rate }
    }
    case 'screenshot':
      if (!['timeout', 'error', 'denied'].includes(parts[1])) throw new Error(`fault ${spec}: want screenshot:timeout, screenshot:error or screenshot:denied`)
      return { kind, mode: parts[1] }
    case 'image-budget':
      if (parts.length > 1) throw new Error(`fault ${spec}: image-budget takes no argument`)
      return { kind }
    case 'settings-nil': {
      const rate = Number(parts[1])
      if (parts[1] === undefined || !(rate >= 0 && rate <= 1)) throw new Error(`fault ${spec}: want settings-nil:<rate from 0 to 1>[:<key>]`)
      return { kind, rate, key: parts.slice(2).join(':') || undefined }
    }
    case 'error-and-closed':
      if (parts.length > 1) throw new Error(`fault ${spec}: error-and-closed takes no argument`)
      return { kind }
    case 'close-drops-sends':
      if (parts.length > 1) throw new Error(`fault ${spec}: close-drops-sends takes no argument`)
      return { kind }
    case 'play-fail-late':
      if (parts.length > 1) throw new Error(`fault ${spec}: play-fail-late takes no argument`)
      return { kind }
    case 'capture-png':
      if (parts.length > 1) throw new Error(`fault ${spec}: capture-png takes no argument`)
      return { kind }
    case 'recording-nil-in-play':
      if (parts.length > 1) throw new Error(`fault ${spec}: recording-nil-in-play takes no argument`)
      return { kind }
    case 'undo-destroyed':
      if (parts.length > 1) throw new Error(`fault ${spec}: undo-destroyed takes no argument`)
      return { kind }
    case 'http-denied':
      if (parts.length > 1) throw new Error(`fault ${spec}: http-denied takes no argument`)
      return { kind }
    case 'pc-drop-unbound':
      if (parts.length > 1) throw new Error(`fault ${spec}: pc-drop-unbound takes no argument`)
      return { kind }
    case 'pc-bind-fail': {
      const context = parts[1] || undefined
      const n = parts[2] === undefined ? 1 : Number(parts[2])
      if ((context !== undefined && !['edit', 'server', 'client'].includes(context)) || !(Number.isInteger(n) && n > 0)) {
        throw new Error(`fault ${spec}: want pc-bind-fail[:<edit|server|client>[:<n>]]`)
      }
      return { kind, context, remaining: n }
    }
    case 'script-locked':
      if (!parts[1]) throw new Error(`fault ${spec}: want script-locked:<path>[:<reason>]`)
      return { kind, path: parts[1], reason: parts.slice(2).join(':') || 'locked by another Team Create collaborator (emulated fault)' }
    default:
      throw new Error(
        `unknown fault ${spec}: use drop, stall, refuse-stream, log-flood, screenshot, image-budget, settings-nil, error-and-closed, close-drops-sends, play-fail-late, capture-png, recording-nil-in-play, undo-destroyed, http-denied, pc-drop-unbound, pc-bind-fail or script-locked`,
      )
  }
}

export class Faults {
  constructor(specs, window) {
    this.window = window
    this.list = specs.map(parseFault)
    this.timers = []
    this.floodCount = 0
  }

  add(spec) {
    const f = parseFault(spec)
    this.list.push(f)
    if (f.kind === 'log-flood') this.startFlood(f)
  }

  clear() {
    this.stop()
    this.list = []
  }

  start() {
    for (const f of this.list) if (f.kind === 'log-flood') this.startFlood(f)
  }

  startFlood(f) {
    const tick = 50
    let owed = 0
    const timer = setInterval(() => {
      owed += (f.rate * tick) / 1000
      const n = Math.floor(owed)
      owed -= n
      for (let i = 0; i < n; i++) {
        this.floodCount += 1
        const line = `flood ${this.floodCount}`
        for (const dm of this.window.models.values()) dm.command('print', line).catch(() => {})
      }
    }, tick)
    timer.unref()
    this.timers.push(timer)
  }

  stop() {
    for (const t of this.timers) clearInterval(t)
    this.timers = []
  }

  refuseStream() {
    const f = this.list.find((x) => x.kind === 'refuse-stream' && x.remaining > 0)
    if (!f) return undefined
    f.remaining -= 1
    return 'HttpService:CreateWebStreamClient() failed: the request was refused (emulated fault)'
  }

  has(kind) {
    return this.list.some((x) => x.kind === kind)
  }

  // settings-nil: whether this GetSetting of key returns nil.
  settingsNil(key) {
    return this.list.some((x) => x.kind === 'settings-nil' && (x.key === undefined || x.key === key) && Math.random() < x.rate)
  }

  // A fault's value as the runtime asks for it (host.fault); pc-bind-fail
  // is used up by asking.
  value(name, context) {
    if (name === 'screenshot') return this.list.find((x) => x.kind === 'screenshot')?.mode
    if (name === 'image-budget') return this.has('image-budget') || undefined
    if (name === 'pc-drop-unbound') return this.has('pc-drop-unbound') || undefined
    if (name === 'error-and-closed') return this.has('error-and-closed') || undefined
    if (name === 'play-fail-late') return this.has('play-fail-late') || undefined
    if (name === 'capture-png') return this.has('capture-png') || undefined
    if (name === 'recording-nil-in-play') return this.has('recording-nil-in-play') || undefined
    if (name === 'undo-destroyed') return this.has('undo-destroyed') || undefined
    if (name === 'pc-bind-fail') {
      const f = this.list.find((x) => x.kind === 'pc-bind-fail' && x.remaining > 0 && (x.context === undefined || x.context === context))
      if (!f) return undefined
      f.remaining -= 1
      return true
    }
    if (name.startsWith('script-locked:')) {
      const path = name.slice('script-locked:'.length)
      return this.list.find((x) => x.kind === 'script-locked' && x.path === path)?.reason
    }
    return undefined
  }

  // Inspects a frame from the host before the plugin sees it.
  onIncoming(dm, socketId, text) {
    const armed = this.list.filter((x) => (x.kind === 'drop' || x.kind === 'stall') && !x.used)
    if (armed.length === 0) return
    let msg
    try {
      msg = JSON.parse(text)
    } catch {
      return
    }
    if (msg.type !== 'request') return
    for (const f of armed) {
      if (f.action !== '*' && f.action !== msg.action) continue
      if (!f.always) f.used = true
      if (f.kind === 'drop') {
        this.window.log(`[${dm.context}] dropping the socket during ${msg.action} request ${msg.id} (fault)`)
        setTimeout(() => dm.sockets.get(socketId)?.ws.terminate(), 20)
      } else {
        dm.stall(f.seconds) // before the request is queued: nothing runs until it ends
      }
    }
  }
}
