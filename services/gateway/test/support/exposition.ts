import { metricsRegistry, parseExposition, type Series } from '@content/platform'

export { sampleOf, type Series } from '@content/platform'

/** The series of this process's exposition, as GET /metrics would serve it. */
export async function scrape (): Promise<Series[]> {
  return parseExposition(await metricsRegistry.metrics())
}
