import type { v1 } from '@content/protos'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { CANNED } from '../support/fake-objects.js'
import { gatewayTest } from '../support/gateway-test.js'
import { must } from '../support/must.js'

// Decisions §14 through the gateway: document 3 of the canned store is `en` with an `it` title.
const gw = gatewayTest()
let cached: FastifyInstance
beforeAll(async () => {
  cached = await gw.build({ settings: { readCache: true } })
  // the cached gateway's feed, and the default gateway's (its live streams follow it too)
  await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(2))
})

const get = (url: string, on = gw.app) => on.inject({ method: 'GET', url })
const doc = must(CANNED.find((o) => o.id === 3))
const languages = { it: { title: 'Ciao' } }

describe('?lang= on object reads', () => {
  it('a single read serves the translated title, the main text elsewhere, lang served, languages whole, in one backend call', async () => {
    const res = await get('/objects/3?lang=it')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ params: { lang: 'it' } })
    expect(res.json().data.object).toMatchObject({ id: 3, lang: 'it', title: 'Ciao', description: 'A doc', body: '<p>Hi</p>', languages })
    expect(gw.backends.calls.map((c) => c.method)).toEqual(['objects.GetObject'])
  })

  it('matches case-insensitively and falls back from a region to its language (RFC 4647 lookup)', async () => {
    for (const lang of ['IT', 'it-CH', 'ita']) {
      expect((await get(`/objects/3?lang=${lang}`)).json().data.object, lang).toMatchObject({ lang: 'it', title: 'Ciao' })
    }
  })

  it('a language without a translation keeps the main text and the main language', async () => {
    const object = (await get('/objects/3?lang=fr')).json().data.object
    expect(object).toMatchObject({ lang: 'en', title: 'HELLO', languages })
  })

  it('without lang nothing changes', async () => {
    const res = await get('/objects/3')
    expect(res.json().params).toEqual([])
    expect(res.json().data.object).toMatchObject({ lang: 'en', title: 'HELLO', description: 'A doc', languages })
    expect(doc.title).toBe('HELLO')
  })

  it('a list translates each object that has the language and leaves the others', async () => {
    const body = (await get('/objects?lang=it&page_size=10')).json()
    expect(body.params).toEqual({ lang: 'it', page_size: '10' })
    const byId = new Map(body.data.objects.map((o: { id: number }) => [o.id, o]))
    expect(byId.get(3)).toMatchObject({ lang: 'it', title: 'Ciao' })
    expect(byId.get(4)).toMatchObject({ lang: 'en', title: 'PIC' })
    expect(gw.backends.calls.map((c) => c.method)).toEqual(['objects.ListObjects'])
  })

  it('a tree list translates its objects', async () => {
    const body = (await get('/objects/1/contents?lang=it')).json()
    expect(body.data.objects).toEqual([expect.objectContaining({ id: 3, lang: 'it', title: 'Ciao' })])
  })

  it('a relation list translates its objects and keeps meta.relation', async () => {
    const original = gw.backends.objects.ListRelated
    gw.backends.objects.ListRelated = async () => ({
      objects: [{ ...doc, relation: { priority: 1, params_json: '' } }] as v1.ContentObject[],
      paging: { page: 1, page_size: 20, page_count: 1, total: 1, total_pages: 1 },
    })
    try {
      const body = (await get('/objects/4/relations/attached_to?lang=it')).json()
      expect(body.params).toEqual({ lang: 'it' })
      expect(body.data.objects[0]).toMatchObject({ id: 3, lang: 'it', title: 'Ciao', languages, meta: { relation: { priority: 1, params: null } } })
    } finally {
      gw.backends.objects.ListRelated = original
    }
  })

  it.each(['', '1', 'x', 'en_US', 'en--us', '%3Cscript%3E', 'a'.repeat(36)])('lang=%s → 400 INVALID_PARAMETER naming lang, no backend call', async (bad) => {
    const res = await get(`/objects/3?lang=${bad}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter: 'lang' } })
    expect(gw.backends.calls).toHaveLength(0)
  })

  it('the read cache keeps answers with and without lang apart', async () => {
    const plain = (await get('/objects/3', cached)).json().data.object
    const italian = (await get('/objects/3?lang=it', cached)).json().data.object
    const again = (await get('/objects/3', cached)).json().data.object
    const italianAgain = (await get('/objects/3?lang=it', cached)).json().data.object
    expect([plain.title, italian.title, again.title, italianAgain.title]).toEqual(['HELLO', 'Ciao', 'HELLO', 'Ciao'])
    // each variant is fetched once, then served from its own cache entry
    expect(gw.backends.calls.filter((c) => c.method === 'objects.GetObject')).toHaveLength(2)
  })
})
