import { describe, expect, it } from 'vitest'
import type { v1 } from '@content/protos'
import { failure, harnessTest, importFixtures } from './harness.js'

/** Every page of ExportObjects, `limit` objects at a time. */
async function exportAll (h: ReturnType<typeof harnessTest>['h'], limit: number): Promise<{ objects: v1.ExportedObject__Output[], pages: number }> {
  const objects: v1.ExportedObject__Output[] = []
  let pages = 0
  for (let after = 0, done = false; !done; pages++) {
    const page = await h.objects.ExportObjects({ after_id: after, limit })
    objects.push(...page.objects)
    after = Number(page.next_after_id)
    done = page.done
  }
  return { objects, pages }
}

describe('ExportObjects over gRPC (admin export)', () => {
  const { h } = harnessTest({}, null)

  it('pages every object by id once — drafts, objects that are off and protected ones too — with placements and relation rows', async () => {
    const refs = await importFixtures(h, {
      objects: [
        { ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] },
        { ref: 'd', object_type: 'document', title: 'D', parents: ['s', '@publication'], relations: { attach: [{ related: 'i', priority: 3, params: { caption: 'c' } }] } },
        { ref: 'i', object_type: 'image', title: 'I', parents: ['s'], permissions: { read: ['members'], write: ['editor'] } },
        { ref: 'draft', object_type: 'document', title: 'Draft', status: 'draft', parents: ['s'] },
        { ref: 'off', object_type: 'document', title: 'Off', status: 'off' },
      ],
    })
    const { objects, pages } = await exportAll(h, 2)
    // six objects, two a page: the fourth page, empty, says it is the last
    expect(pages).toBe(4)
    const byId = new Map(objects.map((e) => [Number(e.object?.id), e]))
    expect([...byId.keys()]).toEqual([1, refs.s, refs.d, refs.i, refs.draft, refs.off])
    expect(byId.get(refs.draft as number)?.object?.status).toBe('draft')
    expect(byId.get(refs.off as number)?.object?.status).toBe('off')
    expect(byId.get(refs.i as number)).toMatchObject({ read_groups: ['members'], write_groups: ['editor'] })
    expect(byId.get(refs.d as number)?.parents).toEqual([{ parent_id: refs.s, priority: 1 }, { parent_id: 1, priority: 2 }])
    expect(byId.get(refs.d as number)?.relations).toEqual([{ name: 'attach', related_id: refs.i, priority: 3, params_json: '{"caption":"c"}' }])
    expect(byId.get(refs.i as number)?.relations).toEqual([{ name: 'attached_to', related_id: refs.d, priority: 1, params_json: '{"caption":"c"}' }])
  })

  it.each([[0], [1001], [-1]])('refuses a page of %i objects', async (limit) => {
    expect((await failure(h.objects.ExportObjects({ after_id: 0, limit }))).reason).toBe('VALIDATION_FAILED')
  })
})
