import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openTestStore, tempSchema } from '../support/temp-postgres.js'

async function onSchema (url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

describe('objects store on PostgreSQL: schema versions', () => {
  it('a store not yet made is refused by `check` naming the command; `migrate` makes it; two processes opening it at once migrate it once', async () => {
    const { url, drop } = await tempSchema()
    try {
      await expect(openTestStore(url, { migrate: 'check' })).rejects.toThrow(/npm run admin -- migrate/)
      const [a, b] = await Promise.all([openTestStore(url), openTestStore(url)])
      expect(a.storeId).toBe(b.storeId)
      expect(await a.objects.get({ id: 1 })).toMatchObject({ nickname: 'publication' })
      await Promise.all([a.close(), b.close()])
    } finally {
      await drop()
    }
  })

  it('an own field added since the store was made: `check` refuses it naming the field, `migrate` adds its column with the default', async () => {
    const { url, drop } = await tempSchema()
    try {
      await (await openTestStore(url)).close()
      await onSchema(url, 'ALTER TABLE objects DROP COLUMN comments')
      await expect(openTestStore(url, { migrate: 'check' })).rejects.toThrow(/no column yet for the own fields comments/)
      const again = await openTestStore(url)
      expect(await again.objects.get({ id: 1 })).toMatchObject({ comments: '' })
      await again.close()
    } finally {
      await drop()
    }
  })
})
