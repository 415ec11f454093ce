#!/usr/bin/env node
// The npm registry these machines reach serves turbo's linux binaries only, so `npm install` writes a
// lockfile without turbo's darwin and windows packages, and `npm ci` then rejects the lockfile as out of
// sync. This adds their entries (optional, with their os/cpu, so npm skips them on other platforms).
// Run it after any change to the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const turbo = lock.packages['node_modules/turbo']
let added = 0
for (const [name, range] of Object.entries(turbo.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`
  if (lock.packages[key]) continue
  const [, os, arch] = /^@turbo\/(darwin|windows|linux)-(64|arm64)$/.exec(name) ?? []
  if (!os) throw new Error(`unexpected optional dependency of turbo: ${name}`)
  lock.packages[key] = {
    version: range, cpu: [arch === '64' ? 'x64' : 'arm64'], dev: true, license: 'MIT', optional: true,
    os: [os === 'windows' ? 'win32' : os],
  }
  added++
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lockfile: ${added} platform entr${added === 1 ? 'y' : 'ies'} of turbo added`)
