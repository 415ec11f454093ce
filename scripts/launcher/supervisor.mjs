// Keeps the services running: a child that exits on its own after it was once ready is started again
// after a growing pause (the others keep serving meanwhile). One that fails before it was ever ready
// (a bad configuration, a port in use) ends the run, since restarting cannot fix that. stop() ends every
// child, whatever the run was doing, and resolves when all are gone.

/** Pause before restart number `attempt` (0-based): doubling from `initialMs`, capped at `maxMs`. */
export function restartDelay (attempt, { initialMs = 250, maxMs = 15_000 } = {}) {
  return Math.min(maxMs, initialMs * 2 ** attempt)
}

/**
 * @param {object} deps
 * @param {(name: string) => import('node:child_process').ChildProcess} deps.spawn starts one service
 * @param {(line: string) => void} deps.report one line about a crash or restart
 * @param {(name: string, code: number | null) => void} deps.onFatal a child failed before it was ever ready
 * @param {{ initialMs?: number, maxMs?: number, stableMs?: number, stopTimeoutMs?: number }} [deps.timing]
 */
export function createSupervisor ({ spawn, report, onFatal, timing = {} }) {
  const { stableMs = 30_000, stopTimeoutMs = 9_000 } = timing
  /** name → { child, attempt, startedAt, timer, ready } */
  const services = new Map()
  let stopping = false

  function launch (name) {
    if (stopping) return
    const entry = services.get(name) ?? { attempt: 0 }
    entry.timer = undefined
    entry.startedAt = Date.now()
    entry.child = spawn(name)
    services.set(name, entry)
    entry.child.once('exit', (code, signal) => {
      entry.child = undefined
      if (stopping) return
      if (!entry.ready) return onFatal(name, code)
      // a child that ran a while before failing starts again at once; a crash loop backs off
      if (Date.now() - entry.startedAt >= stableMs) entry.attempt = 0
      const delay = restartDelay(entry.attempt++, timing)
      report(`${name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`)
      entry.timer = setTimeout(() => launch(name), delay)
    })
  }

  async function stop (order) {
    stopping = true
    for (const entry of services.values()) clearTimeout(entry.timer)
    const running = [...order, ...services.keys()]
      .filter((name, i, all) => all.indexOf(name) === i)
      .map((name) => services.get(name)?.child)
      .filter((child) => child !== undefined)
    const exited = running.map((child) => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve()
      else child.once('exit', () => resolve())
    }))
    for (const child of running) child.kill('SIGTERM')
    const timer = setTimeout(() => { for (const child of running) child.kill('SIGKILL') }, stopTimeoutMs)
    await Promise.all(exited)
    clearTimeout(timer)
  }

  return {
    launch,
    stop,
    /** from now on a crash of `name` is restarted */
    ready (name) {
      const entry = services.get(name)
      if (entry) entry.ready = true
    },
    get stopping () { return stopping },
    pid: (name) => services.get(name)?.child?.pid,
  }
}
