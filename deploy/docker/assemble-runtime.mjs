#!/usr/bin/env node
/**
 * Run by deploy/docker/Dockerfile's build stage, after the build, from the repository root:
 *   node deploy/docker/assemble-runtime.mjs <out dir> <service>…
 * For each service, <out dir>/<service> becomes the image's /app: the production dependencies of that
 * one service (npm ci --omit=dev --workspace), the built output of the workspaces it runs on, its
 * commands linked under bin/, and nothing else — no sources, tests, type declarations, source maps,
 * dev dependencies, other services, or the manifests of workspaces it does not use.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = process.cwd()
const [outDir, ...services] = process.argv.slice(2)
if (!outDir || services.length === 0) {
  console.error('usage: assemble-runtime.mjs <out dir> <service>…')
  process.exit(2)
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'))
const rootManifest = readJson(join(root, 'package.json'))

/** Workspace folders as the root manifest lists them (`services/*` expanded). */
const workspaceDirs = rootManifest.workspaces.flatMap((pattern) => pattern.endsWith('/*')
  ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, pattern.slice(0, -2), entry.name, 'package.json')))
    .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
  : [pattern])
const workspaceByName = new Map(workspaceDirs.map((dir) => [readJson(join(root, dir, 'package.json')).name, dir]))

/** What a workspace runs from, besides package.json: its build output, and the protos' .proto files. */
const RUNTIME_FILES = { protos: ['dist', 'content'] }
/** Build by-products nothing loads at run time. */
const BUILD_ONLY = /\.(d\.ts|d\.ts\.map|js\.map)$/

/** The workspaces a service runs on: its own and, transitively, those in its production dependencies. */
function runtimeWorkspaces (dir) {
  const found = new Set([dir])
  const visit = (current) => {
    for (const name of Object.keys(readJson(join(root, current, 'package.json')).dependencies ?? {})) {
      const dep = workspaceByName.get(name)
      if (dep && !found.has(dep)) { found.add(dep); visit(dep) }
    }
  }
  visit(dir)
  return found
}

function assemble (service) {
  const serviceDir = `services/${service}`
  if (!workspaceDirs.includes(serviceDir)) throw new Error(`unknown service ${service}`)
  const dest = resolve(outDir, service)
  rmSync(dest, { recursive: true, force: true })
  // npm ci checks the lockfile against every workspace manifest, so all of them are there while it runs.
  mkdirSync(dest, { recursive: true })
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(dest, file))
  for (const dir of workspaceDirs) cpSync(join(root, dir, 'package.json'), join(dest, dir, 'package.json'))
  // Install scripts are skipped: of those allowScripts approves, only better-sqlite3's does anything
  // (compile the addon), and the build stage has compiled it already for this very Node.
  execFileSync('npm', ['ci', '--omit=dev', '--workspace', serviceDir, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dest, stdio: 'inherit' })
  rmSync(join(dest, 'package-lock.json'))

  const used = runtimeWorkspaces(serviceDir)
  for (const dir of workspaceDirs) {
    if (!used.has(dir)) {
      rmSync(join(dest, dir), { recursive: true, force: true })
      continue
    }
    for (const entry of RUNTIME_FILES[dir] ?? ['dist']) {
      cpSync(join(root, dir, entry), join(dest, dir, entry), { recursive: true, filter: (path) => !BUILD_ONLY.test(path) })
    }
  }
  for (const parent of new Set(workspaceDirs.map((dir) => dirname(dir)))) {
    if (parent !== '.' && existsSync(join(dest, parent)) && readdirSync(join(dest, parent)).length === 0) rmSync(join(dest, parent), { recursive: true })
  }

  const addon = 'node_modules/better-sqlite3'
  if (existsSync(join(dest, addon))) {
    cpSync(join(root, addon, 'build/Release/better_sqlite3.node'), join(dest, addon, 'build/Release/better_sqlite3.node'))
    // the addon's C and C++ sources (SQLite's amalgamation alone is 9 MB)
    for (const sources of ['deps', 'src', 'binding.gyp']) rmSync(join(dest, addon, sources), { recursive: true, force: true })
  }

  // The service's commands (package.json "bin") as bin/<name>, for PATH.
  const bins = readJson(join(root, serviceDir, 'package.json')).bin ?? {}
  for (const [name, target] of Object.entries(bins)) {
    const file = join(dest, serviceDir, target)
    chmodSync(file, 0o755)
    mkdirSync(join(dest, 'bin'), { recursive: true })
    symlinkSync(relative(join(dest, 'bin'), file), join(dest, 'bin', name))
  }
}

for (const service of services) assemble(service)
