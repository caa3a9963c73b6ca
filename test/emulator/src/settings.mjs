// Plugin settings as the emulator models Studio's store (README, "Plugin
// settings"): one key-value store shared by every local plugin of every
// Studio process on the machine. With a file, every GetSetting reads the
// file again and every SetSetting reads it, changes that one key and writes
// it back: two windows sharing a file see each other's keys and never
// overwrite a key they did not set. Without a file, one window's DataModels
// share an in-memory store.

import { readFileSync, renameSync, writeFileSync } from 'node:fs'

export class SettingsStore {
  constructor(file) {
    this.file = file
    this.memory = new Map() // key -> JSON text, when there is no file
  }

  // The whole store from the file; a missing or unreadable file is empty.
  readFile() {
    try {
      const obj = JSON.parse(readFileSync(this.file, 'utf8'))
      return obj && typeof obj === 'object' && !Array.isArray(obj) ? obj : {}
    } catch {
      return {}
    }
  }

  // The JSON text stored under key, or undefined.
  get(key) {
    if (!this.file) return this.memory.get(key)
    const obj = this.readFile()
    return Object.hasOwn(obj, key) ? JSON.stringify(obj[key]) : undefined
  }

  // Stores JSON text under key (re-read, change one key, write).
  set(key, json) {
    if (!this.file) {
      this.memory.set(key, json)
      return
    }
    const obj = this.readFile()
    obj[key] = JSON.parse(json)
    // write-then-rename, so a reader in another process never sees half a file
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(obj, null, 2))
    renameSync(tmp, this.file)
  }

  // Every key and its JSON text (tests).
  entries() {
    if (!this.file) return [...this.memory]
    return Object.entries(this.readFile()).map(([k, v]) => [k, JSON.stringify(v)])
  }
}
