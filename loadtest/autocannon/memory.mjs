// Each service's memory, from its /metrics (prom-client's process and heap gauges), and the leak check
// of `npm run bench:leak`: the same load in rounds, one process set, memory read after each round.

const MiB = 1024 * 1024

/** RSS and V8 heap in use of one service, in bytes, from its exposition text (NaN when absent). */
export function memoryOf (text) {
  const gauge = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { rss: gauge('process_resident_memory_bytes'), heap: gauge('nodejs_heap_size_used_bytes') }
}

/** Every service's memory now (`metricsUrls`: services.json's `metrics`). */
export async function memoryOfServices (metricsUrls) {
  const entries = await Promise.all(Object.entries(metricsUrls).map(async ([service, url]) => {
    const text = await fetch(url, { signal: AbortSignal.timeout(30_000) }).then((r) => r.text(), () => '')
    return [service, memoryOf(text)]
  }))
  return Object.fromEntries(entries)
}

/** One line: each service's RSS and heap in MiB. */
export function describeMemory (memory) {
  return Object.entries(memory).map(([s, m]) => `${s} rss ${(m.rss / MiB).toFixed(0)} MiB heap ${(m.heap / MiB).toFixed(0)} MiB`).join(', ')
}

/**
 * How far memory may grow over the rounds: the first round fills what is meant to fill (the read cache,
 * the lanes' signatures, the JIT's code, SQLite's page cache), so the figures after it are the base.
 */
export const LEAK_BOUND = { bytes: 32 * MiB, fraction: 0.25 }
/** A round in which a measure grew by less than this share did not grow. */
const FLAT = 0.01

/**
 * The services that leak, given their memory after each round (oldest first, at least three), with why:
 * a measure (RSS or heap) that grew in every round after the first and ended more than the bound above
 * the first round's (a step that then stays flat is a cache filling, not a leak).
 */
export function leaks (rounds, bound = LEAK_BOUND) {
  if (rounds.length < 3) throw new Error('a leak check needs at least three rounds')
  const found = []
  for (const service of Object.keys(rounds[0])) {
    for (const measure of ['rss', 'heap']) {
      const series = rounds.map((r) => r[service]?.[measure] ?? Number.NaN)
      if (series.some(Number.isNaN)) {
        found.push(`${service} ${measure}: not reported`)
        continue
      }
      const base = series[0]
      const grew = series.slice(1).map((m, i) => m - series[i])
      const allowed = Math.max(bound.bytes, base * bound.fraction)
      const total = series[series.length - 1] - base
      if (total > allowed && grew.every((g, i) => g > series[i] * FLAT)) {
        found.push(`${service} ${measure} grew ${(total / MiB).toFixed(0)} MiB after the first round (bound ${(allowed / MiB).toFixed(0)} MiB), in every round`)
      }
    }
  }
  return found
}
