import { z } from 'zod'

/**
 * The export file (docs/backup.md): NDJSON, one record per line, each an object with one key naming its
 * kind. A header first; groups; objects in id order (each a fixtures object of decisions §11 with its
 * id, its tree placements and every relation row, a media object's bytes in the `chunk` lines after it);
 * vocabulary lines before the first object that names them; users (with password hashes); webhooks; and
 * an `end` line with the counts and the SHA-256 of every byte before it, so a cut or altered file is refused.
 */
export const FORMAT = 'content-export'
export const VERSION = 1
/** Bytes of a media file per `chunk` line (base64: 64 KiB of text). */
export const CHUNK_BYTES = 48 * 1024
/** A line longer than this is refused before it is parsed (an object's texts stay far below it). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)
const name = z.string().min(1).max(255)
const sha256 = z.string().regex(/^[0-9a-f]{64}$/)

export const headerRecord = z.object({ format: z.literal(FORMAT), version: z.literal(VERSION), created: z.string() }).strict()
export const groupRecord = z.object({ name, backend_auth: z.boolean() }).strict()
export const vocabularyRecord = z.object({ name, label: z.string().max(255) }).strict()

export const userRecord = z.object({
  username: name,
  name: z.string().max(255),
  email: z.string().max(255),
  groups: z.array(name).max(1000),
  disabled: z.boolean(),
  /** the id of the user's card object in this file */
  card: id.nullable(),
  password_hash: z.string().min(1).max(512),
}).strict()

export const webhookRecord = z.object({ url: z.string().min(1).max(2048), events: z.array(z.string().min(1).max(64)).min(1).max(64), active: z.boolean() }).strict()

export const fileRecord = z.object({ name: z.string().min(1).max(255), mime_type: z.string().min(1).max(255), size: z.number().int().min(0), sha256 }).strict()

/**
 * An object: the fixtures fields (checked by the objects service itself, in a dry run, before anything is
 * written) plus what a move needs: `id`, `parents` with priorities, every relation `row` and the `file`.
 */
export const objectRecord = z.object({
  id,
  object_type: name,
  nickname: name,
  status: z.enum(['on', 'off', 'draft']),
  permissions: z.object({ read: z.array(name), write: z.array(name) }).strict(),
  parents: z.array(z.object({ id, priority: z.number().int() }).strict()),
  relations: z.array(z.object({
    name, related: id, priority: z.number().int().nullable(), params: z.record(z.string(), z.unknown()).nullable(),
  }).strict()),
  file: fileRecord.nullable(),
}).catchall(z.unknown())

export const endRecord = z.object({
  counts: z.record(z.string(), z.number().int().min(0)),
  sha256,
}).strict()

export type ObjectRecord = z.infer<typeof objectRecord>
export type UserRecord = z.infer<typeof userRecord>
export type WebhookRecord = z.infer<typeof webhookRecord>
export type GroupRecord = z.infer<typeof groupRecord>
export type VocabularyRecord = z.infer<typeof vocabularyRecord>

/** Every kind of line; `chunk` is base64 of a slice of the file of the object before it. */
export const RECORDS = {
  header: headerRecord, group: groupRecord, category: vocabularyRecord, tag: vocabularyRecord, object: objectRecord,
  chunk: z.string().max(Math.ceil(CHUNK_BYTES / 3) * 4).regex(/^[A-Za-z0-9+/]*={0,2}$/), user: userRecord, webhook: webhookRecord, end: endRecord,
} as const

export type Kind = keyof typeof RECORDS
export type Line = { [K in Kind]: { kind: K, value: z.infer<typeof RECORDS[K]> } }[Kind]

/** The order kinds may come in: a kind may follow one of the same or an earlier rank only where said. */
export const RANK: Record<Kind, number> = { header: 0, group: 1, category: 2, tag: 2, object: 2, chunk: 2, user: 3, webhook: 4, end: 5 }
