import { present } from '@content/platform'
import { addTranslation, emptyDetails, storedGmaps, type GmapsLookats, type ObjectDetails } from '../../core/types.js'
import { IDS_LIST, ONE_ID, amongIds, type Statements } from './rows.sqlite.js'

/** One part of an object's details: where its rows are, their order, and what a row adds. */
interface Part {
  /** its rows of the objects `among` picks (rows.sqlite.ts amongIds) */
  from: (among: string) => string
  /** one or two columns */
  order: string[]
  /** what `add` reads, from `row[at]` on */
  values: string[]
  add: (details: ObjectDetails, row: unknown[], at: number) => void
}

const PARTS: Part[] = [
  {
    from: (among) => `translations WHERE object_id ${among}`,
    order: ['lang', 'field'],
    values: ['lang', 'field', 'value'],
    add: (d, r, at) => { addTranslation(d, r[at] as string, r[at + 1] as string, r[at + 2] as string) },
  },
  {
    from: (among) => `custom_properties WHERE object_id ${among}`,
    order: ['name'],
    values: ['name', 'value'],
    add: (d, r, at) => { d.custom_properties[r[at] as string] = r[at + 1] as string },
  },
  {
    from: (among) => `geo_tags WHERE object_id ${among}`,
    order: ['id'],
    values: ['id', 'object_id', 'latitude', 'longitude', 'address', 'title', 'gmaps_lookats'],
    add: (d, r, at) => {
      d.geo_tags.push({
        id: r[at] as number, object_id: r[at + 1] as number, latitude: r[at + 2] as number, longitude: r[at + 3] as number,
        address: r[at + 4] as string, title: r[at + 5] as string,
        gmaps_lookats: r[at + 6] === null ? null : storedGmaps(JSON.parse(r[at + 6] as string) as GmapsLookats),
      })
    },
  },
  {
    from: (among) => `object_tags ot JOIN tags t ON t.id = ot.tag_id WHERE ot.object_id ${among}`,
    order: ['t.name'],
    values: ['t.name', 't.label'],
    add: (d, r, at) => { d.tags.push({ name: r[at] as string, label: r[at + 1] as string }) },
  },
  {
    from: (among) => `object_categories oc JOIN categories c ON c.id = oc.category_id WHERE oc.object_id ${among}`,
    order: ['c.name'],
    values: ['c.id', 'c.area_id', 'c.name', 'c.label'],
    add: (d, r, at) => {
      d.categories.push({ id: r[at] as number, area_id: r[at + 1] as number | null, name: r[at + 2] as string, label: r[at + 3] as string })
    },
  },
  {
    from: (among) => `date_items WHERE object_id ${among}`,
    order: ['start_date', 'id'],
    values: ['start_date', 'end_date', 'days'],
    add: (d, r, at) => {
      d.date_items.push({ start_date: r[at] as number | null, end_date: r[at + 1] as number | null, days: JSON.parse(r[at + 2] as string) as number[] })
    },
  },
  {
    from: (among) => `tree WHERE object_id ${among}`,
    order: ['seq'],
    values: ['parent_id'],
    add: (d, r, at) => { d.parent_ids.push(r[at] as number) },
  },
]

/**
 * The parts of one object in one statement: seven cost a single read more (loadtest/README.md,
 * "Uncached reads: where the time goes"). Its rows
 * are [part, object_id, order key 1, order key 2, values…], padded to one width. A page's objects read
 * each part apart, as [object_id, values…]: one sort over all their rows costs more than it saves.
 */
const WIDTH = Math.max(...PARTS.map((p) => p.values.length))
const ONE_SQL = `${PARTS.map((p, i) => {
  const columns = [String(i), 'object_id', p.order[0], p.order[1] ?? 'NULL', ...p.values, ...Array<string>(WIDTH - p.values.length).fill('NULL')]
  return `SELECT ${columns.join(', ')} FROM ${p.from(ONE_ID)}`
}).join('\nUNION ALL ')}\nORDER BY 1, 3, 4`
const PART_SQL = PARTS.map((p) => `SELECT ${['object_id', ...p.values].join(', ')} FROM ${p.from(IDS_LIST)} ORDER BY ${p.order.join(', ')}`)

/** Everything outside the object rows, for many objects at once (rows as tuples: cheaper). */
export function loadDetails (st: Statements, ids: number[]): Map<number, ObjectDetails> {
  const out = new Map<number, ObjectDetails>(ids.map((id) => [id, emptyDetails()]))
  if (ids.length === 0) return out
  const of = (id: unknown) => present(out.get(id as number), `the details of object ${String(id)}`)
  const { params } = amongIds(ids)
  if (ids.length === 1) {
    for (const row of st.rawAll(ONE_SQL, params)) present(PARTS[row[0] as number], 'the part of a details row').add(of(row[1]), row, 4)
  } else {
    PARTS.forEach((part, i) => { for (const row of st.rawAll(PART_SQL[i] as string, params)) part.add(of(row[0]), row, 1) })
  }
  return out
}
