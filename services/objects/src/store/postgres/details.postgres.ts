import { present } from '@content/platform'
import { addTranslation, emptyDetails, storedGmaps, type GmapsLookats, type ObjectDetails } from '../../core/types.js'
import type { Db } from './db.postgres.js'

/** One part of an object's details: its rows as JSON arrays in order, and what a row adds. */
interface Part {
  /** a JSON array per row, from `t` */
  row: string
  from: string
  order: string
  add: (details: ObjectDetails, row: unknown[]) => void
}

const PARTS: Part[] = [
  {
    row: 'json_build_array(t.lang, t.field, t.value)', from: 'translations t', order: 't.lang, t.field',
    add: (d, [lang, field, value]) => { addTranslation(d, lang as string, field as string, value as string) },
  },
  {
    row: 'json_build_array(t.name, t.value)', from: 'custom_properties t', order: 't.name',
    add: (d, [name, value]) => { d.custom_properties[name as string] = value as string },
  },
  {
    row: 'json_build_array(t.id, t.object_id, t.latitude, t.longitude, t.address, t.title, t.gmaps_lookats)', from: 'geo_tags t', order: 't.id',
    add: (d, r) => {
      d.geo_tags.push({
        id: r[0] as number, object_id: r[1] as number, latitude: r[2] as number, longitude: r[3] as number, address: r[4] as string, title: r[5] as string,
        gmaps_lookats: r[6] === null ? null : storedGmaps(JSON.parse(r[6] as string) as GmapsLookats),
      })
    },
  },
  {
    row: 'json_build_array(g.name, g.label)', from: 'object_tags t JOIN tags g ON g.id = t.tag_id', order: 'g.name',
    add: (d, [name, label]) => { d.tags.push({ name: name as string, label: label as string }) },
  },
  {
    row: 'json_build_array(c.id, c.area_id, c.name, c.label)', from: 'object_categories t JOIN categories c ON c.id = t.category_id', order: 'c.name',
    add: (d, [id, area, name, label]) => { d.categories.push({ id: id as number, area_id: area as number | null, name: name as string, label: label as string }) },
  },
  {
    row: 'json_build_array(t.start_date, t.end_date, t.days)', from: 'date_items t', order: 't.start_date, t.id',
    add: (d, [start, end, days]) => { d.date_items.push({ start_date: start as number | null, end_date: end as number | null, days: JSON.parse(days as string) as number[] }) },
  },
  {
    row: 'json_build_array(t.parent_id)', from: 'tree t', order: 't.seq',
    add: (d, [parent]) => { d.parent_ids.push(parent as number) },
  },
]

/**
 * Every part of every object in one statement, one round trip: per object, each part's rows as one JSON
 * array in the part's order (ascending with nulls last, as SQLite's nulls-first order is only for dates
 * of date items, which the query orders explicitly). Each part is an ARRAY() of its ordered rows, not an
 * ordered json_agg: the aggregate set up a sort for each part of each object, rows or none (seven a
 * object), where an ordered subquery reads an index in its order or sorts what it found; a page's twenty
 * objects took PostgreSQL a sixth less (`loadtest/README.md`, "A page's details without a sort per part").
 */
const SQL = `SELECT i.id, ${PARTS.map((p) => `array_to_json(ARRAY(SELECT ${p.row} FROM ${p.from} WHERE t.object_id = i.id
    ORDER BY ${p.order.split(', ').map((c) => (c === 't.start_date' ? `${c} NULLS FIRST` : c)).join(', ')}))`).join(',\n  ')}
  FROM unnest(@ids::bigint[]) i(id)`

export async function loadDetails (db: Db, ids: number[]): Promise<Map<number, ObjectDetails>> {
  const out = new Map<number, ObjectDetails>(ids.map((id) => [id, emptyDetails()]))
  if (ids.length === 0) return out
  for (const row of await db.rawAll(SQL, { ids: [...out.keys()] })) {
    const details = present(out.get(row[0] as number), 'the details of an object')
    PARTS.forEach((part, i) => { for (const r of row[i + 1] as unknown[][]) part.add(details, r) })
  }
  return out
}
