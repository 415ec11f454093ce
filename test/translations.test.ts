import type { ContentObject, Envelope, ObjectData, ObjectListData } from '@content/api-schema'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { client, create, expectError, login, type Client } from './support/writer.js'

describe('translations: ?lang= on reads (decisions §14)', () => {
  let system: RunningSystem
  let editor: Client
  let id: number
  const languages = { 'it': { title: 'Ciao', body: 'Corpo' }, 'pt-BR': { title: 'Olá' } }

  beforeAll(async () => {
    system = await startSystem()
    editor = client(system.base, await login(system.base))
    id = await create(editor, {
      object_type: 'document', parents: [1], title: 'Hello', description: 'About', body: 'Body', lang: 'en', languages,
    })
  })
  afterAll(async () => {
    await system.stop()
    removeDir(system.dataDir)
  })

  const object = async (query: string): Promise<ContentObject> => {
    const res = await http(system.base, 'GET', `/objects/${id}${query}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return (res.body as Envelope<ObjectData>).data.object
  }

  it('serves the translated fields, the main text for the others, and keeps languages whole', async () => {
    expect(await object('?lang=it')).toMatchObject({ lang: 'it', title: 'Ciao', body: 'Corpo', description: 'About', languages })
    expect(await object('?lang=pt-br')).toMatchObject({ lang: 'pt-BR', title: 'Olá', body: 'Body' })
  })

  it('falls back from a region to its language, and to the main language when there is no translation', async () => {
    expect(await object('?lang=it-CH')).toMatchObject({ lang: 'it', title: 'Ciao' })
    expect(await object('?lang=fr')).toMatchObject({ lang: 'en', title: 'Hello', body: 'Body', languages })
    expect(await object('')).toMatchObject({ lang: 'en', title: 'Hello' })
  })

  it('translates lists, tree reads and relation lists alike, and echoes lang in params', async () => {
    const list = await http(system.base, 'GET', `/objects?lang=it&page_size=100`)
    expect(list.body.params).toEqual({ lang: 'it', page_size: '100' })
    const listed = (list.body as Envelope<ObjectListData>).data.objects.find((o) => o.id === id)
    expect(listed).toMatchObject({ lang: 'it', title: 'Ciao' })
    const children = await http(system.base, 'GET', `/objects/1/children?lang=IT&page_size=100`)
    expect((children.body as Envelope<ObjectListData>).data.objects.find((o) => o.id === id)).toMatchObject({ lang: 'it', title: 'Ciao' })
  })

  it('refuses what is not a language tag with 400 INVALID_PARAMETER naming lang', async () => {
    for (const bad of ['en_US', 'x', '1', '', '%3Cscript%3E']) {
      const res = await http(system.base, 'GET', `/objects/${id}?lang=${bad}`)
      expect(expectError(res, 400, 'INVALID_PARAMETER')).toEqual({ parameter: 'lang' })
    }
  })
})
