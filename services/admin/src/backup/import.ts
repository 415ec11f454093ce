import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import { toTransportError } from '@content/platform'
import type { AdminClients } from '../clients.js'
import type { Printed } from '../printed.js'
import { describeRpcError } from '../rpc-errors.js'
import { type BatchEntry, objectBatches, type Step } from './batches.js'
import { FileChecker } from './check.js'
import type { GroupRecord, ObjectRecord, UserRecord, WebhookRecord } from './format.js'
import { BackupError, readRecords } from './lines.js'
import { PUBLICATION_ID, fixtureObjectOf } from './records.js'
import { posterSink } from './upload.js'

/** Opens the export file again for each pass. */
export type Open = () => Readable

/** Placements and relation rows sent per call in the last pass. */
const LINKS_PER_CALL = 500

interface Target { groups: Set<string>, usernames: Set<string> }

/**
 * Imports an export into an empty system (docs/backup.md), in three passes over the file. The first checks
 * everything and writes nothing: the file on its own (FileChecker), each media file as the poster service
 * checks uploads, each batch of objects in a dry run of the objects service, the accounts in a dry run of
 * the auth service. The second creates the groups, the publication's permissions and the objects, batch by batch
 * in id order (new ids keep the old order; on a store whose ids were never used past the publication's they
 * are the old ids). The third places children at their priorities, saves every relation row, then the
 * users (with their password hashes) and the webhooks. Memory holds a batch and the map from old to new ids.
 */
export async function importAll (clients: AdminClients, open: Open): Promise<Printed> {
  const probe = await clients.objects.ExportObjects({ after_id: PUBLICATION_ID, limit: 1 })
  if (probe.objects.length > 0) throw new BackupError('the system holds objects besides the publication: an export is imported into an empty system')
  const target: Target = {
    groups: new Set((await clients.auth.ListGroups({})).groups.map((g) => g.name)),
    usernames: new Set((await clients.auth.ListUsers({})).users.map((u) => u.username)),
  }
  const checked = await rpcRefusals(() => check(clients, open, target))
  const ids = await writeObjects(clients, open, target, checked.groups)
  const written = await writeLinks(clients, open, ids, target)
  const changed = [...ids].filter(([from, to]) => from !== to).length
  const lines = [
    `imported ${checked.counts.object ?? 0} objects (${checked.counts.chunk ?? 0} file chunks), ${written.users} users, ${written.webhooks.length} webhooks`,
    changed === 0 ? 'every object kept its id' : `${changed} objects have new ids (nicknames are kept)`,
    ...written.kept.map((u) => `user ${u} exists already: kept as it is`),
    ...written.webhooks.map((w) => `webhook ${w.url}: ${w.secret ? `new secret ${w.secret}` : w.problem}`),
  ]
  return { text: lines.join('\n'), json: { counts: checked.counts, ids_changed: changed, users: written.users, users_kept: written.kept, webhooks: written.webhooks } }
}

/** A refusal by a service during the check is the file's fault: it is reported as a problem of the file. */
async function rpcRefusals<T> (work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof BackupError || !toTransportError(err).expose) throw err
    throw new BackupError(`refused: ${describeRpcError(err)}`)
  }
}

async function check (clients: AdminClients, open: Open, target: Target): Promise<{ counts: Record<string, number>, groups: GroupRecord[] }> {
  const checker = new FileChecker(target.groups)
  const hash = createHash('sha256')
  let end: { counts: Record<string, number>, sha256: string } | null = null
  const groups: GroupRecord[] = []
  const users: UserRecord[] = []
  async function * fed () {
    for await (const line of readRecords(open(), hash)) {
      checker.feed(line)
      if (line.kind === 'end') end = line.value
      yield line
    }
  }
  const earlier = new Set<number>()
  for await (const step of objectBatches(fed(), (record) => posterSink(clients, record))) {
    if (step.type === 'batch') {
      await importBatch(clients, step, knownGroups(target, groups), true, (id) => (earlier.has(id) || id === PUBLICATION_ID ? '@publication' : String(id)))
      for (const e of step.entries) earlier.add(e.record.id)
    } else if (step.type === 'line' && step.line.kind === 'group') groups.push(step.line.value)
    else if (step.type === 'line' && step.line.kind === 'user') users.push(step.line.value)
    else if (step.type === 'line' && step.line.kind === 'webhook') webhookProblem(step.line.value, step.line.n)
  }
  checker.finish(end, hash.digest('hex'))
  const newGroups = groups.filter((g) => !target.groups.has(g.name))
  await clients.auth.ImportAccounts({ groups: newGroups, users: accountsOf(users, target, null), dry_run: true })
  return { counts: checker.counts, groups: newGroups }
}

function webhookProblem (w: WebhookRecord, n: number): void {
  let url: URL | null = null
  try { url = new URL(w.url) } catch { url = null }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new BackupError(`line ${n}: webhook url must be an http or https URL`)
}

const knownGroups = (target: Target, groups: GroupRecord[]) => [...new Set([...target.groups, ...groups.map((g) => g.name)])]

/** One batch as one fixtures import; answers the new id of each object, in order. */
async function importBatch (clients: AdminClients, step: Extract<Step, { type: 'batch' }>, groups: string[], dryRun: boolean, parentTarget: (id: number) => string | number): Promise<number[]> {
  const inBatch = new Set(step.entries.map((e) => e.record.id))
  const target = (id: number) => (inBatch.has(id) ? String(id) : parentTarget(id))
  const objects = step.entries.map((e: BatchEntry) => fixtureObjectOf(e.record, target, e.file))
  const answer = await clients.objects.ImportFixtures({
    fixtures_json: JSON.stringify({ categories: step.categories, tags: step.tags, objects }), known_groups: groups, dry_run: dryRun, answer_ref_ids: true,
  })
  return answer.ref_ids.map(Number)
}

function accountsOf (users: UserRecord[], target: Target, ids: Map<number, number> | null) {
  return users.filter((u) => !target.usernames.has(u.username)).map((u) => ({
    username: u.username, password: '', password_hash: u.password_hash, groups: u.groups, name: u.name, email: u.email, disabled: u.disabled,
    ...(u.card !== null && ids ? { card_id: mapped(ids, u.card) } : {}),
  }))
}

function mapped (ids: Map<number, number>, id: number): number {
  const to = ids.get(id)
  if (to === undefined) throw new Error(`object ${id} of the file was not imported`)
  return to
}

async function writeObjects (clients: AdminClients, open: Open, target: Target, groups: GroupRecord[]): Promise<Map<number, number>> {
  if (groups.length > 0) await clients.auth.ImportAccounts({ groups, users: [], dry_run: false })
  const known = knownGroups(target, groups)
  const ids = new Map<number, number>([[PUBLICATION_ID, PUBLICATION_ID]])
  let publication: ObjectRecord | null = null
  for await (const step of objectBatches(readRecords(open()), (record) => posterSink(clients, record))) {
    if (step.type === 'publication') publication = step.record
    if (step.type !== 'batch') continue
    const made = await importBatch(clients, step, known, false, (id) => mapped(ids, id))
    if (made.length !== step.entries.length) throw new Error(`the objects service made ${made.length} of a batch of ${step.entries.length} objects`)
    for (const [i, e] of step.entries.entries()) ids.set(e.record.id, made[i] as number)
  }
  if (publication) await writePublication(clients, publication)
  return ids
}

/**
 * The publication exists in every system, made by it at its first start, and no write may change its
 * fields (decisions §4): only its permissions move.
 */
async function writePublication (clients: AdminClients, record: ObjectRecord): Promise<void> {
  await clients.objects.SetPermissions({ object_id: String(PUBLICATION_ID), read_groups: record.permissions.read, write_groups: record.permissions.write })
}

interface Written { users: number, kept: string[], webhooks: { url: string, secret?: string, problem?: string }[] }

async function writeLinks (clients: AdminClients, open: Open, ids: Map<number, number>, target: Target): Promise<Written> {
  const children = new Map<number, { child_id: number, priority: number }[]>()
  let pending = 0
  const flushChildren = async () => {
    for (const [parent, items] of children) {
      await clients.tree.SaveChildren({ object_id: String(parent), body_json: JSON.stringify({ data: items }), idempotency_key: '', request_hash: '' })
    }
    children.clear()
    pending = 0
  }
  const users: UserRecord[] = []
  const webhooks: WebhookRecord[] = []
  const waiting: RelationSave[] = []
  for await (const line of readRecords(open())) {
    if (line.kind === 'user') users.push(line.value)
    if (line.kind === 'webhook') webhooks.push(line.value)
    if (line.kind !== 'object') continue
    const o = line.value
    const id = mapped(ids, o.id)
    for (const p of o.parents) {
      const parent = mapped(ids, p.id)
      children.set(parent, [...(children.get(parent) ?? []), { child_id: id, priority: p.priority }])
      if (++pending >= LINKS_PER_CALL) await flushChildren()
    }
    await saveRelations(clients, relationSaves(id, o, ids), waiting)
  }
  await flushChildren()
  await saveWaiting(clients, waiting)
  const accounts = accountsOf(users, target, ids)
  if (accounts.length > 0) await clients.auth.ImportAccounts({ groups: [], users: accounts, dry_run: false })
  return { users: accounts.length, kept: users.filter((u) => target.usernames.has(u.username)).map((u) => u.username), webhooks: await addWebhooks(clients, webhooks) }
}

type RelationSave = { id: number, name: string, items: unknown[] }

/** Every row of the object, by name: the first side saved makes the pair, the other side's row then gets its own priority. */
function relationSaves (id: number, o: ObjectRecord, ids: Map<number, number>): RelationSave[] {
  const byName = new Map<string, unknown[]>()
  for (const r of o.relations) {
    const item = { related_id: mapped(ids, r.related), ...(r.priority === null ? {} : { priority: r.priority }), ...(r.params === null ? {} : { params: r.params }) }
    byName.set(r.name, [...(byName.get(r.name) ?? []), item])
  }
  return [...byName].flatMap(([name, items]) => {
    const saves: RelationSave[] = []
    for (let i = 0; i < items.length; i += LINKS_PER_CALL) saves.push({ id, name, items: items.slice(i, i + LINKS_PER_CALL) })
    return saves
  })
}

const save = (clients: AdminClients, s: RelationSave) =>
  clients.objects.SaveRelations({ object_id: String(s.id), name: s.name, body_json: JSON.stringify({ data: s.items }), idempotency_key: '', request_hash: '' })

/**
 * Saves the relations; one refused as not yet reachable (an object off the tree, reachable only through a
 * relation saved later) waits, and is tried again once the others are saved, until none is left or none
 * more succeeds.
 */
async function saveRelations (clients: AdminClients, saves: RelationSave[], waiting: RelationSave[]): Promise<void> {
  for (const s of saves) {
    try {
      await save(clients, s)
    } catch (err) {
      if (toTransportError(err).reason !== 'VALIDATION_FAILED') throw err
      waiting.push(s)
    }
  }
}

async function saveWaiting (clients: AdminClients, waiting: RelationSave[]): Promise<void> {
  while (waiting.length > 0) {
    const round = waiting.splice(0)
    await saveRelations(clients, round, waiting)
    if (waiting.length === round.length) await save(clients, waiting[0] as RelationSave) // no progress: its refusal is the answer
  }
}

/** Webhooks come last, with new secrets (an export holds none); one the system refuses is reported, not fatal. */
async function addWebhooks (clients: AdminClients, webhooks: WebhookRecord[]): Promise<Written['webhooks']> {
  const out: Written['webhooks'] = []
  for (const w of webhooks) {
    if (!w.active) {
      out.push({ url: w.url, problem: 'inactive in the export: not added' })
      continue
    }
    try {
      out.push({ url: w.url, secret: (await clients.webhooks.AddWebhook({ url: w.url, events: w.events, secret: '' })).secret })
    } catch (err) {
      out.push({ url: w.url, problem: `not added: ${describeRpcError(err)}` })
    }
  }
  return out
}
