import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { photo, png } from './media.js'
import { admin } from './seeded.js'
import { ADMIN, http, type RunningSystem } from './system.js'

/** The users of the rich publication, with their passwords (a move must keep them). */
export const BACKUP_USERS = [
  { username: 'alice', password: 'alice-secret-1', groups: ['members'], name: 'Alice', email: 'alice@example.org', card: 'card' },
  { username: 'bob', password: 'bob-secret-12', groups: ['editor'], name: 'Bob', email: 'bob@example.org' },
]

/** Every nickname the publication holds, the publication's own included: the comparison walks them all. */
export const NICKNAMES = ['publication', 'alpha', 'beta', 'gamma', 'hello', 'secret', 'draft', 'off', 'harbour', 'chart', 'party', 'alice-card', 'orphan-link']

/**
 * Seeds a rich publication through the admin tool and the API: sections three deep, documents under two
 * parents (one of them a section made later, so a parent has a higher id than its child), images with files,
 * every relation kind with params and priorities set on both sides, a draft, an object that is off, a
 * protected one, translations, tags, categories, geo tags, date items, a card, an object with relations and
 * no parent, and a trashed object (a gap in the ids).
 */
export async function seedRichPublication (system: RunningSystem, dir: string): Promise<void> {
  writeFileSync(join(dir, 'harbour.jpg'), await photo(3, 240, 160))
  writeFileSync(join(dir, 'chart.png'), await png(64, 48))
  const fixtures = {
    groups: [{ name: 'members', backend_auth: false }],
    users: BACKUP_USERS,
    categories: [{ name: 'news', label: 'News' }],
    tags: [{ name: 'harbours', label: 'Harbours' }],
    objects: [
      { ref: 'alpha', object_type: 'section', title: 'Alpha', nickname: 'alpha', parents: ['@publication'] },
      { ref: 'beta', object_type: 'section', title: 'Beta', nickname: 'beta', parents: ['alpha'] },
      { ref: 'gone', object_type: 'document', title: 'Gone', nickname: 'gone', parents: ['alpha'] },
      {
        ref: 'hello', object_type: 'document', title: 'Hello', nickname: 'hello', body: '<p>Body</p>', description: 'A greeting',
        parents: ['alpha', 'beta'], tags: ['harbours', 'misc'], categories: ['news'], lang: 'en',
        languages: { it: { title: 'Ciao', body: '<p>Corpo</p>' } }, custom_properties: { colour: 'blue' },
        geo_tags: [{ title: 'Port', address: 'Quay 1', latitude: 44.4, longitude: 8.9 }],
        publication_date: '2026-01-02T03:04:05Z',
        relations: { attach: [{ related: 'harbour', priority: 2, params: { caption: 'At dawn' } }], seealso: [{ related: 'secret' }] },
      },
      { ref: 'secret', object_type: 'document', title: 'Secret', nickname: 'secret', parents: ['alpha'], permissions: { read: ['members'], write: ['editor'] } },
      { ref: 'draft', object_type: 'document', title: 'Draft', nickname: 'draft', status: 'draft', parents: ['beta'] },
      { ref: 'off', object_type: 'document', title: 'Off', nickname: 'off', status: 'off', parents: ['alpha'] },
      { ref: 'harbour', object_type: 'image', title: 'Harbour', nickname: 'harbour', file: 'harbour.jpg', parents: ['alpha'] },
      { ref: 'chart', object_type: 'image', title: 'Chart', nickname: 'chart', file: 'chart.png', parents: ['beta'], permissions: { read: ['members'], write: [] } },
      {
        ref: 'party', object_type: 'event', title: 'Party', nickname: 'party', parents: ['beta'],
        date_items: [{ start_date: '2026-06-01T18:00:00Z', end_date: '2026-06-01T23:00:00Z', days: [1, 3] }],
        start_date: '2026-01-01T00:00:00Z', end_date: '2030-01-01T00:00:00Z',
      },
      { ref: 'card', object_type: 'card', title: 'Alice A.', nickname: 'alice-card', parents: ['@publication'] },
      { ref: 'orphan', object_type: 'link', title: 'Orphan link', nickname: 'orphan-link', relations: { seealso: [{ related: 'hello', params: { why: 'context' } }] } },
    ],
  }
  writeFileSync(join(dir, 'rich.json'), JSON.stringify(fixtures))
  const seeded = admin(system, 'seed', join(dir, 'rich.json'))
  expect(seeded.status, seeded.stderr).toBe(0)

  const token = (await http(system.base, 'POST', '/auth', { body: ADMIN })).body.data.access_token as string
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await http(system.base, method, path, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) })
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    return res
  }
  const gamma = await send('POST', '/objects', { data: { object_type: 'section', title: 'Gamma', nickname: 'gamma', parents: [1] } })
  const gammaId = gamma.body.data.object.id as number
  await send('POST', `/objects/${gammaId}/children`, { data: [{ child_id: idOf(seeded.lastLine, 'hello'), priority: 7 }, { child_id: idOf(seeded.lastLine, 'party'), priority: 2 }] })
  await send('PUT', `/objects/alpha/children/${idOf(seeded.lastLine, 'secret')}`, { data: { priority: 40 } })
  await send('POST', '/objects/hello/relations/poster', { data: { related_id: idOf(seeded.lastLine, 'chart'), priority: 1 } })
  await send('PUT', `/objects/harbour/relations/attached_to/${idOf(seeded.lastLine, 'hello')}`, { data: { priority: 9, params: { caption: 'At dawn' } } })
  await send('DELETE', '/objects/gone')
}

const idOf = (refsLine: string, ref: string): number => {
  const id = (JSON.parse(refsLine) as Record<string, number>)[ref]
  expect(id, ref).toBeTypeOf('number')
  return id as number
}
