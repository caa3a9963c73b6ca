// Pairing of the emulated plugin (protocol/PROTOCOL.md 12.3, plugin/README.md
// "Pairing"): the key install-plugin writes into the installed plugin,
// derived here the same way (HKDF-SHA256 of the user's token, info
// "plugin-pairing") from the token the config directory holds, and the
// carrier string install-plugin puts in plugin/src/Pairing.luau's place.

import { createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

export const PLACEHOLDER = 'STUDIO-BRIDGE-PAIRING-PLACEHOLDER:install-plugin-writes-the-key-and-port-here:'
export const DEFAULT_PORT = 38741

// The pairing key of a token: 32 bytes.
export function pairingKey(token) {
  return Buffer.from(hkdfSync('sha256', Buffer.from(token, 'utf8'), Buffer.alloc(0), Buffer.from('plugin-pairing'), 32))
}

// The carrier install-plugin writes: sbpair1:<hex key>:<port, 5 digits>.
export function carrier(key, port) {
  const value = `sbpair1:${key.toString('hex')}:${String(port).padStart(5, '0')}`
  if (value.length !== PLACEHOLDER.length) throw new Error('pairing carrier and placeholder differ in length')
  return value
}

// The proofs of PROTOCOL.md 12.3, for hosts written in JavaScript (MiniHost).
export function proof(key, label, hostNonce, pluginNonce, instanceId) {
  return createHmac('sha256', key).update(`studio-bridge ${label} proof\n${hostNonce}\n${pluginNonce}\n${instanceId}`).digest('hex')
}

export function nonce() {
  return randomBytes(32).toString('base64url')
}

// The studio-bridge config directory as package authtoken finds it:
// STUDIO_BRIDGE_CONFIG_DIR, else studio-bridge in the OS's user config
// directory (Go's os.UserConfigDir).
export function configDir(env = process.env) {
  if (env.STUDIO_BRIDGE_CONFIG_DIR) return path.resolve(env.STUDIO_BRIDGE_CONFIG_DIR)
  let base
  if (process.platform === 'win32') base = env.APPDATA
  else if (process.platform === 'darwin') base = env.HOME && path.join(env.HOME, 'Library', 'Application Support')
  else base = env.XDG_CONFIG_HOME || (env.HOME && path.join(env.HOME, '.config'))
  if (!base) throw new Error('no user config directory (set STUDIO_BRIDGE_CONFIG_DIR, or pass --config-dir or --unpaired)')
  return path.join(base, 'studio-bridge')
}

const MIN_TOKEN = 16
const MAX_TOKEN = 256

function validToken(v) {
  return v.length >= MIN_TOKEN && v.length <= MAX_TOKEN && /^[!-~]+$/.test(v)
}

// The user's token as authtoken.Resolve finds it: STUDIO_BRIDGE_TOKEN, else
// the token file in dir, created (as a host would create it) when missing,
// so that an emulator started beside a fresh host pairs with it. Only a
// regular file is read (opened non-blocking, never following a link).
export function resolveToken(dir, env = process.env) {
  if (env.STUDIO_BRIDGE_TOKEN) {
    if (!validToken(env.STUDIO_BRIDGE_TOKEN)) throw new Error('STUDIO_BRIDGE_TOKEN: a token is 16 to 256 printable characters without spaces')
    return env.STUDIO_BRIDGE_TOKEN
  }
  const file = path.join(dir, 'token')
  for (let i = 0; i < 3; i++) {
    let fd
    try {
      fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    } catch (err) {
      if (err.code !== 'ENOENT') throw new Error(`read the token file ${file}: ${err.message}`)
      createToken(dir, file)
      continue
    }
    try {
      if (!fstatSync(fd).isFile()) throw new Error(`token file ${file} is not a regular file`)
      const buf = Buffer.alloc(MAX_TOKEN + 2)
      const n = readSync(fd, buf, 0, buf.length, 0)
      const v = buf.subarray(0, n).toString('utf8').trim()
      if (!validToken(v)) throw new Error(`token file ${file} does not hold a valid token; remove it and studio-bridge makes a new one`)
      return v
    } finally {
      closeSync(fd)
    }
  }
  throw new Error(`token file ${file} keeps disappearing`)
}

// Writes a new token file without ever replacing one (link(2), as authtoken
// does): a racing host's token stands.
function createToken(dir, file) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const tmp = path.join(dir, `.token-${process.pid}-${randomBytes(6).toString('hex')}`)
  writeFileSync(tmp, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' })
  try {
    linkSync(tmp, file)
  } catch (err) {
    if (err.code !== 'EEXIST') throw new Error(`create the token file ${file}: ${err.message}`)
  } finally {
    rmSync(tmp, { force: true })
  }
}

// Puts the carrier into the plugin tree's Pairing module, as install-plugin
// rewrites it in the installed file. The module must hold the placeholder
// exactly once.
export function pairPluginTree(tree, key, port) {
  const node = tree.children.find((c) => c.name === 'Pairing')
  if (!node || node.source.split(PLACEHOLDER).length !== 2) throw new Error('the plugin has no Pairing module holding the pairing placeholder once')
  node.source = node.source.replace(PLACEHOLDER, carrier(key, port))
}
