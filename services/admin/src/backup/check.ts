import { createHash, type Hash } from 'node:crypto'
import { canRelate, isObjectType, type ObjectTypeName } from '@content/api-schema'
import type { Line } from './format.js'
import { RANK } from './format.js'
import { BackupError } from './lines.js'
import { PUBLICATION_ID } from './records.js'

const TREE_NODES = new Set(['area', 'section'])

/**
 * What an export file must be on its own, checked line by line before anything is written (docs/backup.md):
 * the order of its records, ids ascending, nicknames unique, every parent a section or the publication of
 * the file, every relation allowed between the types it joins, each file's bytes matching its size and
 * hash, users naming known groups and card objects, and the `end` line's counts and hash. It holds the ids
 * and types of the objects (a few dozen bytes each) and the nicknames, never their content.
 */
export class FileChecker {
  private rank = -1
  private lastKind = ''
  private ended = false
  private lastId = 0
  private readonly types = new Map<number, ObjectTypeName>()
  private readonly nicknames = new Set<string>()
  private readonly groups = new Set<string>()
  private readonly usernames = new Set<string>()
  /** links to objects after the one naming them: checked once every object is known */
  private readonly later: { n: number, check: () => string | null }[] = []
  private file: { id: number, size: number, received: number, hash: Hash, sha256: string } | null = null
  readonly counts: Record<string, number> = {}

  /** `existingGroups`: the groups of the system imported into, which users and permissions may name too. */
  constructor (private readonly existingGroups: ReadonlySet<string>) {}

  feed (line: Line & { n: number }): void {
    const at = `line ${line.n}`
    if (this.ended) throw new BackupError(`${at}: a record after the end line`)
    if (line.kind !== 'chunk') this.closeFile(at)
    if (this.rank === -1 && line.kind !== 'header') throw new BackupError(`${at}: the file does not start with a header line; is it an export?`)
    if (RANK[line.kind] < this.rank) throw new BackupError(`${at}: a ${line.kind} record after the ${this.lastKind} records`)
    if (line.kind === 'header' && this.rank !== -1) throw new BackupError(`${at}: a second header`)
    this.rank = RANK[line.kind]
    this.lastKind = line.kind
    if (line.kind !== 'end') this.counts[line.kind] = (this.counts[line.kind] ?? 0) + 1
    switch (line.kind) {
      case 'group':
        if (this.groups.has(line.value.name)) throw new BackupError(`${at}: group "${line.value.name}" appears twice`)
        this.groups.add(line.value.name)
        break
      case 'object': this.object(line.value, at); break
      case 'chunk': this.chunk(line.value, at); break
      case 'user': this.user(line.value, at); break
      case 'end': this.ended = true; break
    }
  }

  private knownGroup = (name: string) => this.groups.has(name) || this.existingGroups.has(name)

  private object (o: Extract<Line, { kind: 'object' }>['value'], at: string): void {
    if (o.id <= this.lastId) throw new BackupError(`${at}: object ${o.id} after object ${this.lastId} (ids ascend, each once)`)
    if (this.lastId === 0 && (o.id !== PUBLICATION_ID || o.object_type !== 'area')) throw new BackupError(`${at}: the first object must be the publication (id ${PUBLICATION_ID}, an area)`)
    if (this.lastId !== 0 && o.object_type === 'area') throw new BackupError(`${at}: object ${o.id}: the publication is the only area`)
    if (!isObjectType(o.object_type)) throw new BackupError(`${at}: object ${o.id}: unknown object type "${o.object_type}"`)
    const type = o.object_type
    this.lastId = o.id
    this.types.set(o.id, type)
    if (this.nicknames.has(o.nickname)) throw new BackupError(`${at}: nickname "${o.nickname}" appears twice`)
    this.nicknames.add(o.nickname)
    for (const g of [...o.permissions.read, ...o.permissions.write]) {
      if (!this.knownGroup(g)) throw new BackupError(`${at}: object ${o.id}: permissions name the unknown group "${g}"`)
    }
    if (o.id === PUBLICATION_ID && o.parents.length > 0) throw new BackupError(`${at}: the publication has no parent`)
    for (const p of o.parents) this.whenKnown(at, p.id, o.id, () => (TREE_NODES.has(this.types.get(p.id) ?? '') ? null : `object ${o.id}: parent ${p.id} is not a section or the publication of the file`))
    for (const r of o.relations) {
      this.whenKnown(at, r.related, o.id, () => {
        const related = this.types.get(r.related)
        if (related === undefined) return `object ${o.id}: related object ${r.related} is not in the file`
        return canRelate(r.name, type, related) ? null : `object ${o.id}: a ${type} cannot relate to a ${related} with "${r.name}"`
      })
    }
    if (o.file) this.file = { id: o.id, size: o.file.size, received: 0, hash: createHash('sha256'), sha256: o.file.sha256 }
  }

  /** Runs `check` now when `target` was met already, else once every object is known. */
  private whenKnown (at: string, target: number, self: number, check: () => string | null): void {
    if (target === self) throw new BackupError(`${at}: object ${self} names itself`)
    if (target < self) {
      const problem = this.types.has(target) ? check() : `object ${self} names object ${target}, which is not in the file`
      if (problem) throw new BackupError(`${at}: ${problem}`)
    } else {
      this.later.push({ n: Number(at.slice(5)), check: () => (this.types.has(target) ? check() : `object ${self} names object ${target}, which is not in the file`) })
    }
  }

  private chunk (base64: string, at: string): void {
    if (!this.file) throw new BackupError(`${at}: file bytes that follow no media object`)
    const bytes = Buffer.from(base64, 'base64')
    this.file.received += bytes.length
    if (this.file.received > this.file.size) throw new BackupError(`${at}: the file of object ${this.file.id} has more bytes than its size`)
    this.file.hash.update(bytes)
  }

  private closeFile (at: string): void {
    const f = this.file
    if (!f) return
    this.file = null
    if (f.received !== f.size) throw new BackupError(`${at}: the file of object ${f.id} has ${f.received} of its ${f.size} bytes`)
    if (f.hash.digest('hex') !== f.sha256) throw new BackupError(`${at}: the file of object ${f.id} does not match its sha256`)
  }

  private user (u: Extract<Line, { kind: 'user' }>['value'], at: string): void {
    if (this.usernames.has(u.username)) throw new BackupError(`${at}: user "${u.username}" appears twice`)
    this.usernames.add(u.username)
    const unknown = u.groups.filter((g) => !this.knownGroup(g))
    if (unknown.length > 0) throw new BackupError(`${at}: user "${u.username}" names unknown groups: ${unknown.join(', ')}`)
    if (u.card !== null && this.types.get(u.card) !== 'card') throw new BackupError(`${at}: user "${u.username}": object ${u.card} is not a card of the file`)
  }

  /** After the last line: the end line was there and agrees with the file; links to later objects hold. */
  finish (end: { counts: Record<string, number>, sha256: string } | null, sha256: string): void {
    if (!this.ended || end === null) throw new BackupError('the file ends before its end line: it was cut short')
    if (end.sha256 !== sha256) throw new BackupError('the file does not match the sha256 of its end line: it was altered or damaged')
    const kinds = new Set([...Object.keys(end.counts), ...Object.keys(this.counts)])
    for (const kind of kinds) {
      if ((end.counts[kind] ?? 0) !== (this.counts[kind] ?? 0)) throw new BackupError(`the file holds ${this.counts[kind] ?? 0} ${kind} records, its end line says ${end.counts[kind] ?? 0}`)
    }
    for (const { n, check } of this.later) {
      const problem = check()
      if (problem) throw new BackupError(`line ${n}: ${problem}`)
    }
  }
}
