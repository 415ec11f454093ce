#!/usr/bin/env node
// `npm run lint`: Biome's recommended rules over the whole repository (settings in biome.jsonc). Biome
// exits non-zero on errors and, with --error-on-warnings, on warnings, but its infos only print; a second,
// quiet pass counts them, so any finding at all fails.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
const root = fileURLToPath(new URL('..', import.meta.url))
const lint = (args, options) => spawnSync(process.execPath, [biome, 'lint', ...args, '.'], { cwd: root, ...options })

const shown = lint(['--error-on-warnings', '--max-diagnostics=none'], { stdio: 'inherit' })
if (shown.status !== 0) process.exit(shown.status ?? 1)
const counted = lint(['--reporter=json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
const { summary } = JSON.parse(counted.stdout)
if (summary.infos > 0) {
  console.error(`lint: ${summary.infos} info finding${summary.infos === 1 ? '' : 's'} above; none are allowed`)
  process.exit(1)
}
