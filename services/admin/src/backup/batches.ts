import type { v1 } from '@content/protos'
import type { Line, ObjectRecord, VocabularyRecord } from './format.js'
import { BackupError } from './lines.js'
import { PUBLICATION_ID } from './records.js'

/** Objects per import transaction, unless later sections must join them (see `objectBatches`). */
export const BATCH = 500
/** A batch this much larger than BATCH waits for sections that never come: the file is refused. */
const BATCH_CAP = BATCH * 20

export interface BatchEntry { record: ObjectRecord, file: v1.MediaFile__Output | null }

/** What `objectBatches` yields: the publication, batches of the other objects, and every other line as it is. */
export type Step =
  | { type: 'publication', record: ObjectRecord }
  | { type: 'batch', entries: BatchEntry[], categories: VocabularyRecord[], tags: VocabularyRecord[] }
  | { type: 'line', line: Line & { n: number } }

/** Receives the bytes of one media object's file (its `chunk` lines, decoded) and answers what was stored. */
export interface FileSink {
  push (bytes: Buffer): Promise<void>
  finish (): Promise<v1.MediaFile__Output>
}

/**
 * Groups the objects of an export into import batches, in id order, so ids keep their order. A batch ends
 * after BATCH objects, but only where no object of it is placed under an object still to come (a section
 * moved under a newer one): that parent joins the batch, where the import resolves it by ref. `store`
 * receives each file's bytes (null: they are skipped).
 */
export async function * objectBatches (lines: AsyncIterable<Line & { n: number }>, store: ((record: ObjectRecord) => FileSink) | null): AsyncGenerator<Step> {
  let entries: BatchEntry[] = []
  let vocabulary = { categories: [] as VocabularyRecord[], tags: [] as VocabularyRecord[] }
  let waitingFor = 0
  let sink: { entry: BatchEntry, sink: FileSink } | null = null
  const closeFile = async () => {
    if (sink) sink.entry.file = await sink.sink.finish()
    sink = null
  }
  const flush = function * (): Generator<Step> {
    if (entries.length > 0) yield { type: 'batch', entries, ...vocabulary }
    entries = []
    vocabulary = { categories: [], tags: [] }
  }
  for await (const line of lines) {
    if (line.kind !== 'chunk') await closeFile()
    switch (line.kind) {
      case 'chunk':
        if (sink) await sink.sink.push(Buffer.from(line.value, 'base64'))
        continue
      case 'category': vocabulary.categories.push(line.value); continue
      case 'tag': vocabulary.tags.push(line.value); continue
      case 'object': {
        const record = line.value
        if (record.id === PUBLICATION_ID) {
          yield { type: 'publication', record }
          continue
        }
        if (entries.length >= BATCH && waitingFor <= (entries.at(-1)?.record.id ?? 0)) yield * flush()
        if (entries.length >= BATCH_CAP) throw new BackupError(`line ${line.n}: objects placed under object ${waitingFor}, which does not come`)
        const entry: BatchEntry = { record, file: null }
        entries.push(entry)
        for (const p of record.parents) waitingFor = Math.max(waitingFor, p.id)
        if (record.file && store) sink = { entry, sink: store(record) }
        continue
      }
      default:
        yield * flush()
        yield { type: 'line', line }
    }
  }
  await closeFile()
  yield * flush()
}
