import { createHash, type Hash } from 'node:crypto'
import { once } from 'node:events'
import type { Readable, Writable } from 'node:stream'
import { TOO_DEEP, describeIssues, parseJson } from '@content/platform'
import { MAX_LINE_BYTES, RECORDS, type Kind, type Line } from './format.js'

/** A refused export file: what is wrong, and where. Nothing has been written when it is raised by the check. */
export class BackupError extends Error {}

/** Writes records as lines, keeping the SHA-256 and the count of each kind for the `end` line; waits when the stream is full. */
export class LineWriter {
  private readonly hash: Hash = createHash('sha256')
  readonly counts: Record<string, number> = {}

  constructor (private readonly out: Writable) {}

  async write (kind: Kind, value: unknown): Promise<void> {
    const line = `${JSON.stringify({ [kind]: value })}\n`
    this.hash.update(line)
    this.counts[kind] = (this.counts[kind] ?? 0) + 1
    if (!this.out.write(line)) await once(this.out, 'drain')
  }

  /** The `end` line: the counts and the hash of every byte before it. */
  async end (): Promise<void> {
    const line = `${JSON.stringify({ end: { counts: this.counts, sha256: this.hash.digest('hex') } })}\n`
    if (!this.out.write(line)) await once(this.out, 'drain')
  }
}

/** The lines of a stream (without their `\n`), each refused past MAX_LINE_BYTES before it is held whole. */
export async function * splitLines (input: Readable, maxBytes = MAX_LINE_BYTES): AsyncGenerator<Buffer> {
  let parts: Buffer[] = []
  let held = 0
  for await (const data of input) {
    let chunk = data as Buffer
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10)) {
      if (held + nl > maxBytes) throw new BackupError(`a line is longer than ${maxBytes} bytes`)
      parts.push(chunk.subarray(0, nl))
      yield parts.length === 1 ? parts[0] as Buffer : Buffer.concat(parts)
      parts = []
      held = 0
      chunk = chunk.subarray(nl + 1)
    }
    held += chunk.length
    if (held > maxBytes) throw new BackupError(`a line is longer than ${maxBytes} bytes`)
    if (chunk.length > 0) parts.push(chunk)
  }
  if (held > 0) yield Buffer.concat(parts)
}

/** One line as a record: JSON of one known kind, its value checked; `n` is its line number for the message. */
export function parseLine (text: string, n: number): Line {
  const json = parseJson(text)
  if (!json.ok) throw new BackupError(`line ${n}: ${json.tooDeep ? TOO_DEEP : json.rule ? json.syntax : 'not valid JSON'}`)
  const value = json.value
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length !== 1) {
    throw new BackupError(`line ${n}: a record is an object with one key naming its kind`)
  }
  const [kind, body] = Object.entries(value)[0] as [string, unknown]
  if (!Object.hasOwn(RECORDS, kind)) throw new BackupError(`line ${n}: unknown record kind "${kind}"`)
  const parsed = RECORDS[kind as Kind].safeParse(body)
  if (!parsed.success) throw new BackupError(`line ${n}: ${kind}: ${describeIssues(parsed.error).join('; ')}`)
  return { kind, value: parsed.data } as Line
}

/** Lines with their number and record, hashing every byte before the `end` line into `hash`. */
export async function * readRecords (input: Readable, hash?: Hash): AsyncGenerator<Line & { n: number }> {
  let n = 0
  for await (const raw of splitLines(input)) {
    n++
    const line = parseLine(raw.toString('utf8'), n)
    if (line.kind !== 'end') hash?.update(raw).update('\n')
    yield { ...line, n }
  }
}
