import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { openClientStream } from '@content/platform'
import type { v1 } from '@content/protos'
import { lookup } from 'mime-types'
import { ADMIN_TIMEOUT_MS, type AdminClients } from './clients.js'
import { describeRpcError } from './rpc-errors.js'

type FixtureObject = Record<string, unknown>

const isObject = (v: unknown): v is FixtureObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Sends one file to the poster service, which checks it as an upload and stores it; answers what it stored. */
async function storeFile (clients: Pick<AdminClients, 'poster' | 'userToken'>, path: string, objectType: string): Promise<v1.MediaFile__Output> {
  const size = (await stat(path)).size
  const { stream, response } = openClientStream<v1.UploadPart, v1.MediaFile__Output>(
    clients.poster.raw.ImportFile.bind(clients.poster.raw), { timeoutMs: ADMIN_TIMEOUT_MS, userToken: clients.userToken })
  const header: v1.UploadPart = {
    header: { object_type: objectType, file_name: basename(path), mime_type: lookup(path) || '', declared_size: size },
  }
  const parts = new Transform({ writableObjectMode: false, readableObjectMode: true, transform: (chunk, _enc, done) => done(null, { chunk }) })
  parts.push(header)
  // a refusal ends the call early: stop sending then, and report the refusal rather than the broken pipe
  await pipeline(createReadStream(path), parts, stream as unknown as NodeJS.WritableStream).catch(() => undefined)
  return response
}

/**
 * Decisions §11: a media object's `file` names a file relative to the fixtures file. Each one is stored by
 * the poster service (which checks it as it checks uploads) and replaced by what was stored, so the
 * objects service attaches it in the same transaction as the rest of the file. Every problem is listed.
 */
export async function storeFixtureFiles (objects: unknown[], baseDir: string, clients: Pick<AdminClients, 'poster' | 'userToken'>): Promise<{ objects: unknown[], problems: string[], stored: number }> {
  const problems: string[] = []
  const stored = [...objects]
  let count = 0
  // one file at a time: the poster service bounds concurrent uploads and would refuse a burst
  for (const [i, object] of objects.entries()) {
    if (!isObject(object) || typeof object.file !== 'string') continue
    const path = resolve(baseDir, object.file)
    try {
      stored[i] = { ...object, file: await storeFile(clients, path, String(object.object_type ?? '')) }
      count++
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      problems.push(`objects.${i}.file: ${typeof code === 'string' && code.startsWith('E') ? `cannot read ${path} (${code})` : describeRpcError(err)}`)
    }
  }
  return { objects: stored, problems, stored: count }
}
