import { openServerStream } from '@content/platform'
import type { v1 } from '@content/protos'
import { ADMIN_TIMEOUT_MS, type AdminClients } from '../clients.js'
import { CHUNK_BYTES, FORMAT, VERSION, type UserRecord } from './format.js'
import type { LineWriter } from './lines.js'
import { objectRecordOf } from './records.js'

/** Objects asked for per page: each page is one call, its relation rows and placements included. */
const PAGE = 200

/**
 * Writes the whole content to `writer` page by page (docs/backup.md): memory holds one page of objects,
 * one chunk of a file, the vocabulary names met so far and the accounts (one call answers them all).
 * Answers the counts of each kind of record.
 */
export async function exportAll (clients: AdminClients, writer: LineWriter, now = new Date()): Promise<Record<string, number>> {
  await writer.write('header', { format: FORMAT, version: VERSION, created: now.toISOString() })
  const accounts = await clients.auth.ExportAccounts({})
  for (const g of accounts.groups) await writer.write('group', { name: g.name, backend_auth: g.backend_auth })
  await exportObjects(clients, writer)
  for (const u of accounts.users) await writer.write('user', userRecordOf(u))
  for (const w of (await clients.webhooks.ListWebhooks({})).webhooks) await writer.write('webhook', { url: w.url, events: w.events, active: w.active })
  await writer.end()
  return writer.counts
}

const userRecordOf = (e: v1.ExportedUser__Output): UserRecord => {
  const u = e.user as v1.User__Output
  return {
    username: u.username, name: u.name, email: u.email, groups: u.groups, disabled: u.disabled,
    card: u.card_id === undefined || u.card_id === null ? null : Number(u.card_id), password_hash: e.password_hash,
  }
}

async function exportObjects (clients: AdminClients, writer: LineWriter): Promise<void> {
  const seen = { category: new Set<string>(), tag: new Set<string>() }
  for (let after = 0, done = false; !done;) {
    const page = await clients.objects.ExportObjects({ after_id: after, limit: PAGE })
    for (const exported of page.objects) {
      const o = exported.object as v1.ContentObject__Output
      for (const [kind, items] of [['category', o.categories], ['tag', o.tags]] as const) {
        for (const v of items) {
          if (seen[kind].has(v.name)) continue
          seen[kind].add(v.name)
          await writer.write(kind, { name: v.name, label: v.label })
        }
      }
      const record = objectRecordOf(exported)
      await writer.write('object', record)
      if (record.file) await exportFile(clients, writer, record.id, record.file.name, record.file.size)
    }
    after = Number(page.next_after_id)
    done = page.done
  }
}

/** The original's bytes as `chunk` lines of CHUNK_BYTES each; a file whose size changed meanwhile is an error. */
async function exportFile (clients: AdminClients, writer: LineWriter, objectId: number, fileName: string, size: number): Promise<void> {
  const stream = openServerStream<v1.GetOriginalRequest, v1.FileChunk__Output>(clients.poster.raw.GetOriginal.bind(clients.poster.raw),
    { object_id: String(objectId), file_name: fileName }, { timeoutMs: ADMIN_TIMEOUT_MS, userToken: clients.userToken })
  let pending: Buffer = Buffer.alloc(0)
  let total = 0
  for await (const part of stream as AsyncIterable<v1.FileChunk__Output>) {
    if (!part.chunk) continue
    pending = pending.length === 0 ? part.chunk : Buffer.concat([pending, part.chunk])
    total += part.chunk.length
    while (pending.length >= CHUNK_BYTES) {
      await writer.write('chunk', pending.subarray(0, CHUNK_BYTES).toString('base64'))
      pending = pending.subarray(CHUNK_BYTES)
    }
  }
  if (pending.length > 0) await writer.write('chunk', pending.toString('base64'))
  if (total !== size) throw new Error(`the file of object ${objectId} has ${total} bytes, not the ${size} its object says`)
}
