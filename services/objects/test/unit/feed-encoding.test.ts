import { describe, expect, it } from 'vitest'
import type * as grpc from '@grpc/grpc-js'
import { loadContentProtos } from '@content/protos'
import type { FeedMessage } from '../../src/core/change-feed.js'
import { feedEncoding } from '../../src/rpc/feed-encoding.js'

const definition = loadContentProtos().content.v1.ObjectService.service
const watch = definition.WatchChanges as grpc.MethodDefinition<unknown, unknown>

const message = (): FeedMessage => ({
  store_id: 'store',
  reset: false,
  clock: false,
  seq: 12,
  events: [
    { seq: 11, type: 'object.created', object_id: 40, object_type: 'document', at: 1_700_000_000_000, affects: [40, 1] },
    { seq: 12, type: 'relation.created', object_id: 40, object_type: 'document', related_id: 41, related_type: 'image', relation: 'attach', at: 1_700_000_000_000, affects: [40, 41, 1] },
  ],
})

describe('feedEncoding', () => {
  it('when streams write one message, then it is encoded once, into the bytes the method encodes it to, and they pass the serializer unchanged', () => {
    let serialized = 0
    const counted = { ...definition, WatchChanges: { ...watch, responseSerialize: (value: unknown) => { serialized++; return watch.responseSerialize(value) } } }
    const feed = feedEncoding(counted)
    const m = message()
    const bytes = feed.encode(m)
    expect(feed.encode(m)).toBe(bytes)
    expect(feed.encode(m)).toBe(bytes)
    expect(serialized).toBe(1)
    expect(bytes.equals(watch.responseSerialize(m))).toBe(true)
    expect(watch.responseDeserialize(bytes)).toMatchObject({ seq: 12, events: [{ seq: 11, affects: [40, 1] }, { seq: 12, related_id: 41, relation: 'attach' }] })
    // what a stream writes: the bytes as they are; a message still encoded as before
    const serialize = (feed.definition.WatchChanges as grpc.MethodDefinition<unknown, unknown>).responseSerialize
    expect(serialize(bytes)).toBe(bytes)
    expect(serialize(m).equals(bytes)).toBe(true)
    // another message is encoded on its own
    const other = { ...message(), seq: 13 }
    expect(feed.encode(other).equals(bytes)).toBe(false)
    expect(serialized).toBe(3)
  })

  it('when it wraps the service, then every other method is the one it was', () => {
    const feed = feedEncoding(definition)
    for (const [name, method] of Object.entries(definition)) {
      if (name !== 'WatchChanges') expect(feed.definition[name]).toBe(method)
    }
    expect(Object.keys(feed.definition)).toEqual(Object.keys(definition))
  })
})
