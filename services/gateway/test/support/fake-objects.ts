import { DomainError, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { must } from './must.js'

type Obj = v1.ContentObject
type Caller = v1.Caller__Output | null | undefined

const T0 = Date.UTC(2024, 4, 6, 7, 8, 9)

function obj (id: number, type: string, typeId: number, nickname: string, extra: Partial<Obj> = {}): Obj {
  return {
    id, object_type: type, object_type_id: typeId, nickname, title: nickname.toUpperCase(), lang: 'en',
    rights: '', license: '', creator: '', publisher: '', comments: 'off', valid: true, created: T0, modified: T0 + 1000,
    status: 'on', authorized: true, free_access: true, languages: {}, relations: [], custom_properties: {}, geo_tags: [],
    tags: [], categories: [], date_items: [], user_created: 1, user_modified: 1, parent_ids: [], ...extra,
  }
}

/** The canned store: publication 1, section 2, document 3 (attach → image 4), image 4 (with a file), event 5, protected 6. */
export const CANNED: Obj[] = [
  obj(1, 'area', 1, 'publication', { children: { count: 2, sections: 1, contents: 1 } }),
  obj(2, 'section', 3, 'news', { parent_ids: [1], children: { count: 0, sections: 0, contents: 0 } }),
  obj(3, 'document', 22, 'hello', {
    parent_ids: [1], description: 'A doc', body: '<p>Hi</p>', publication_date: T0,
    relations: [{ name: 'attach', count: 1 }], tags: [{ label: 'Tag One', name: 'tag-one' }],
    categories: [{ id: 9, label: 'Cat', name: 'cat' }], custom_properties: { color: 'blue' },
    languages: { it: { fields: { title: 'Ciao' } } },
    geo_tags: [{ id: 1, object_id: 3, latitude: 45.5, longitude: 9.2, address: 'Milano', title: 'Here', gmaps_lookats: { zoom: 5, mapType: 'k', latitude: 1, longitude: 2, range: 3 } }],
  }),
  obj(4, 'image', 12, 'pic', {
    relations: [{ name: 'attached_to', count: 1 }],
    file: { key: 'a'.repeat(64), name: 'été 2024.jpg', mime_type: 'image/jpeg', size: 300_000, width: 640, height: 480 },
  }),
  obj(5, 'event', 21, 'party', { date_items: [{ start_date: T0, end_date: T0 + 3_600_000, days: [1, 3] }] }),
  obj(6, 'document', 22, 'secret', { free_access: false }),
]

const invalid = (details: Record<string, string>) => new DomainError('VALIDATION_FAILED', `invalid fields: ${Object.keys(details).join(', ')}`, details)

/** The body's `data` as the real service reads it, after its object checks: absent is MISSING_PARAMETER. */
/** The `data` of a forwarded write body (the gateway sends only JSON). */
function dataOf (bodyJson: string | undefined): unknown {
  const data = bodyJson === undefined ? undefined : (JSON.parse(bodyJson) as { data?: unknown } | null)?.data
  if (data === undefined) throw new DomainError('MISSING_PARAMETER', 'the request body must be a JSON object with a "data" member', { parameter: 'data' })
  return data
}

type Item = Record<string, unknown>

/** One item or a list of them, each with a positive integer `idKey` (a simpler cut of the service's rules). */
function itemsOf (bodyJson: string | undefined, idKey: string): Item[] {
  const data = dataOf(bodyJson)
  const list = (Array.isArray(data) ? data : [data]) as Item[]
  if (list.length === 0) throw invalid({ data: 'must hold at least one item' })
  const bad = list.flatMap((item, i) => (typeof item?.[idKey] === 'number' && (item[idKey] as number) > 0 ? [] : [`${Array.isArray(data) ? `data[${i}]` : 'data'}.${idKey}`]))
  if (bad.length > 0) throw invalid(Object.fromEntries(bad.map((field) => [field, 'is required and must be a positive integer'])))
  return list
}

/** `{priority}` of a PUT body; a negative or non-integer priority is refused. */
function priorityOf (bodyJson: string | undefined): number | undefined {
  const data = dataOf(bodyJson) as Item | null
  const priority = data?.priority
  if (priority !== undefined && (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0)) throw invalid({ 'data.priority': 'must be a non-negative integer' })
  return priority
}

const notFound = (what: string) => new DomainError('OBJECT_NOT_FOUND', `object ${what} not found`)

export class ObjectsFake {
  private readonly byId = new Map<number, Obj>()
  nextId = 100

  constructor (objects: Obj[]) {
    for (const o of objects) this.byId.set(Number(o.id), structuredClone(o))
  }

  /**
   * id or nickname → the object, with decisions §7 read checks (6 needs group `members`); below an
   * object-type endpoint (`type`), an object of another type is not found.
   */
  read (ref: string, caller: Caller, type = ''): Obj {
    const o = /^[0-9]+$/.test(ref) ? this.byId.get(Number(ref)) : [...this.byId.values()].find((x) => x.nickname === ref)
    if (!o) throw notFound(ref)
    if (o.free_access === false) {
      if (!caller || Number(caller.user_id) === 0) throw new DomainError('OBJECT_PROTECTED', 'this object is protected')
      if (!caller.groups.includes('members')) throw new DomainError('PERMISSION_DENIED', 'no permission on this object')
    }
    if (type !== '' && o.object_type !== type) throw new DomainError('OBJECT_NOT_FOUND', `no ${type} with id or nickname "${ref}"`)
    return { ...o, authorized: true }
  }

  page (items: Obj[], page: v1.PageRequest__Output | null | undefined): v1.ObjectList {
    const p = page?.page || 1
    const size = page?.page_size || 20
    const slice = items.slice((p - 1) * size, p * size)
    return { objects: slice, paging: { page: p, page_size: size, page_count: slice.length, total: items.length, total_pages: Math.ceil(items.length / size) } }
  }

  visible (caller: Caller, filter: v1.ListFilter__Output | null | undefined): Obj[] {
    return [...this.byId.values()].filter((o) => o.id !== 1 && (o.free_access !== false || caller?.groups.includes('members')))
      .filter((o) => !filter?.object_types.length || filter.object_types.includes(must(o.object_type)))
  }

  objectService (): ServiceImpl<v1.ObjectServiceHandlers> {
    return {
      GetObject: async (req) => ({ object: this.read(req.object_id, req.caller, req.object_type) }),
      ListObjects: async (req) => this.page(this.visible(req.caller, req.filter), req.page),
      // the test app's clients call reads one by one (coalescing is the gateway process's, main.ts)
      CallBatch: async () => { throw new Error('the fake objects service serves no batches') },
      ReadBatch: async () => { throw new Error('the fake objects service serves no batches') },
      GetRelationSummary: async (req) => {
        const o = this.read(req.object_id, req.caller, req.object_type)
        return { relations: o.relations, object_id: o.id }
      },
      ListRelated: async (req) => {
        const o = this.read(req.object_id, req.caller, req.object_type)
        if (req.name === 'bogus') throw new DomainError('UNKNOWN_RELATION', 'bogus is not a relation of this type')
        const related = o.id === 3 && req.name === 'attach' ? [{ ...this.read('4', req.caller), relation: { priority: 1, params_json: '{"label":"x"}' } }] : []
        return this.page(related, req.page)
      },
      GetRelation: async (req) => {
        this.read(req.object_id, req.caller, req.object_type)
        if (req.name !== 'attach' || req.related_id !== 4) throw new DomainError('RELATION_NOT_FOUND', 'no such relation')
        return { priority: 1, params_json: '{"label":"x"}' }
      },
      CreatePreview: async (req) => ({ object_id: Number(this.read(req.object_id, req.caller).id), token: 'preview-token', expires: 0 }),
      GetPreview: async (req) => {
        if (req.token !== 'preview-token') throw new DomainError('PREVIEW_TOKEN_INVALID', 'invalid preview token')
        return { object: this.read(req.object_id, { user_id: 1, groups: ['administrator'], may_write: true }) }
      },
      SaveObject: async (req) => {
        const data = dataOf(req.body_json) as Record<string, unknown>
        if (typeof data !== 'object' || data === null || Array.isArray(data)) {
          throw new DomainError('VALIDATION_FAILED', 'invalid data', { data: 'must be a JSON object' })
        }
        if (data.id !== undefined) return { object: this.read(String(data.id), req.caller), created: false }
        if (!req.writable_types.includes(String(data.object_type))) throw new DomainError('TYPE_NOT_WRITABLE', `${String(data.object_type)} is not writable`)
        const created = obj(this.nextId++, String(data.object_type), 22, `new-${this.nextId}`, { title: String(data.title ?? '') })
        this.byId.set(Number(created.id), created)
        return { object: created, created: true }
      },
      DeleteObject: async (req) => {
        const o = this.read(req.object_id, req.caller)
        this.byId.delete(Number(o.id))
        return {}
      },
      // the trash's rules are the objects service's (its own tests): here an empty trash
      ListTrash: async (req) => ({ objects: [], paging: { page: req.page?.page || 1, page_size: req.page?.page_size || 20, page_count: 0, total: 0, total_pages: 0 } }),
      RestoreTrashed: async (req) => { throw new DomainError('OBJECT_NOT_FOUND', `object "${req.object_id}" is not in the trash`) },
      PurgeTrashed: async (req) => { throw new DomainError('OBJECT_NOT_FOUND', `object "${req.object_id}" is not in the trash`) },
      // revisions: the objects service's rules (its own tests); here none
      ListRevisions: async (req) => {
        this.read(req.object_id, req.caller)
        return { revisions: [], paging: { page: 1, page_size: 20, page_count: 0, total: 0, total_pages: 0 } }
      },
      GetRevision: async (req) => { throw new DomainError('REVISION_NOT_FOUND', `no revision ${req.revision}`) },
      RestoreRevision: async (req) => { throw new DomainError('REVISION_NOT_FOUND', `no revision ${req.revision}`) },
      // like the real service: the object is checked first, then the body
      SaveRelations: async (req) => {
        this.read(req.object_id, req.caller)
        const items = itemsOf(req.body_json, 'related_id')
        return {
          items: items.map((i, n) => ({
            related_id: i.related_id as number, priority: (i.priority as number | undefined) ?? n + 2, params_json: i.params ? JSON.stringify(i.params) : '', created: i.related_id !== 4,
          })),
        }
      },
      ReplaceRelation: async (req) => {
        this.read(req.object_id, req.caller)
        const data = dataOf(req.body_json) as Item
        const priority = priorityOf(req.body_json)
        if (priority === undefined && data.params === undefined) throw invalid({ data: 'needs params or priority' })
        return { ...(priority !== undefined ? { priority } : {}), params_json: data.params ? JSON.stringify(data.params) : '' }
      },
      DeleteRelation: async (req) => {
        if (req.related_id !== 4) throw new DomainError('RELATION_NOT_FOUND', 'no such relation')
        return {}
      },
      WatchChanges: (() => {}) as unknown as ServiceImpl<v1.ObjectServiceHandlers>['WatchChanges'],
      ResolveAccess: async (req) => ({
        refs: req.refs.map((ref) => {
          const o = /^[0-9]+$/.test(ref) ? this.byId.get(Number(ref)) : [...this.byId.values()].find((x) => x.nickname === ref)
          return o === undefined ? { id: 0 } : { id: o.id, access: { status: 'on', read_groups: o.free_access === false ? ['members'] : [], write_groups: [], parents: [], ancestors: [] } }
        }),
      }),
      ImportFixtures: async () => { throw new DomainError('NOT_IMPLEMENTED', 'no') },
      SetPermissions: async () => { throw new DomainError('NOT_IMPLEMENTED', 'no') },
      ExportObjects: async () => { throw new DomainError('NOT_IMPLEMENTED', 'no') },
    }
  }

  treeService (): ServiceImpl<v1.TreeServiceHandlers> {
    return {
      ListTree: async (req) => {
        const o = this.read(req.object_id, req.caller, req.object_type)
        if (req.kind === 'SIBLINGS') {
          if (o.id === 1) throw new DomainError('NO_PARENT', 'the publication has no parent')
          return this.page(this.visible(req.caller, req.filter).filter((x) => x.id !== o.id && x.parent_ids?.includes(1)), req.page)
        }
        if (o.object_type !== 'area' && o.object_type !== 'section') throw new DomainError('NOT_A_TREE_NODE', 'not a section')
        const kids = this.visible(req.caller, req.filter).filter((x) => x.parent_ids?.includes(Number(o.id)))
        const pick = req.kind === 'SECTIONS' ? kids.filter((x) => x.object_type === 'section') : req.kind === 'CONTENTS' ? kids.filter((x) => x.object_type !== 'section') : kids
        return this.page(pick, req.page)
      },
      GetChildPosition: async (req) => {
        this.read(req.object_id, req.caller, req.object_type)
        if (req.child_id !== 3) throw new DomainError('CHILD_NOT_FOUND', 'not a child')
        return { priority: 2 }
      },
      SaveChildren: async (req) => {
        this.read(req.object_id, req.caller)
        const items = itemsOf(req.body_json, 'child_id')
        return { items: items.map((i, n) => ({ child_id: i.child_id as number, priority: (i.priority as number | undefined) ?? n + 5, created: i.child_id !== 3 })) }
      },
      UpdateChild: async (req) => {
        this.read(req.object_id, req.caller)
        const priority = priorityOf(req.body_json)
        if (priority === undefined) throw invalid({ 'data.priority': 'is required and must be a non-negative integer' })
        return { priority }
      },
      RemoveChild: async (req) => {
        if (req.child_id !== 3) throw new DomainError('CHILD_NOT_FOUND', 'not a child')
        return {}
      },
    }
  }
}
