import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { finished, pipeline } from 'node:stream/promises'
import type { AdminClients } from '../clients.js'
import type { Printed } from '../printed.js'
import { exportAll } from './export.js'
import { importAll } from './import.js'
import { BackupError, LineWriter } from './lines.js'

/**
 * `admin export --out <file>`: written beside it as `<file>.partial` and renamed once whole, so a file
 * with the name asked for is always complete. `-` is stdout.
 */
export async function exportCommand (clients: AdminClients, out: string): Promise<Printed> {
  if (out === '-') {
    const counts = await exportAll(clients, new LineWriter(process.stdout))
    return summary(counts, 'stdout')
  }
  const file = resolve(out)
  const partial = `${file}.partial`
  const stream = createWriteStream(partial, { flags: 'wx' })
  try {
    const counts = await exportAll(clients, new LineWriter(stream))
    stream.end()
    await finished(stream)
    await rename(partial, file)
    return summary(counts, file)
  } catch (err) {
    stream.destroy()
    await rm(partial, { force: true })
    throw err
  }
}

const summary = (counts: Record<string, number>, where: string): Printed => ({
  text: `exported ${counts.object ?? 0} objects, ${counts.chunk ?? 0} file chunks, ${counts.group ?? 0} groups, ${counts.user ?? 0} users, ${counts.webhook ?? 0} webhooks to ${where}`,
  json: { file: where, counts },
})

/** `admin import --in <file>`; `-` is stdin, kept in a temporary file meanwhile (the import reads it three times). */
export async function importCommand (clients: AdminClients, input: string): Promise<Printed> {
  if (input !== '-') {
    const file = resolve(input)
    await new Promise<void>((res, rej) => createReadStream(file).once('open', () => res()).once('error', (err: NodeJS.ErrnoException) => rej(new BackupError(`cannot read ${file}: ${err.code ?? err.message}`))))
    return importAll(clients, () => createReadStream(file))
  }
  const dir = await mkdtemp(join(tmpdir(), 'content-import-'))
  try {
    const file = join(dir, 'export.ndjson')
    await pipeline(process.stdin, createWriteStream(file))
    return await importAll(clients, () => createReadStream(file))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
