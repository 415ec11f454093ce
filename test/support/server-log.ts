/** What the services logged about one request: every line naming its id, each with `context` lines either side. */
export function logAround (output: string, requestId: string | undefined, context = 3): string[] {
  const lines = output.split('\n')
  const keep = new Set<number>()
  if (requestId) {
    lines.forEach((line, i) => {
      if (!line.includes(requestId)) return
      for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep.add(j)
    })
  }
  return [...keep].sort((a, b) => a - b).map((i) => lines[i] ?? '')
}

/** The lines at error level or above (pino's 50 and 60). */
export const errorLines = (output: string): string[] => output.split('\n').filter((line) => /"level":(50|60)/.test(line))

/**
 * A 5xx and what the services said about it, for a test's failure message: the lines naming its request
 * id, or else (an answer with no id, or a log not yet written) the error-level lines.
 */
export async function describeServerError (what: string, requestId: string | undefined, output: () => string): Promise<string> {
  await new Promise((r) => setTimeout(r, 300)) // the services' last lines reach the captured output
  const around = logAround(output(), requestId)
  const lines = around.length > 0 ? around : errorLines(output()).slice(-10)
  return `${what} (request ${requestId ?? 'without an id'})\nthe services logged:\n${lines.map((l) => l.slice(0, 1_000)).join('\n') || '(nothing)'}`
}
