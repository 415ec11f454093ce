import type * as grpc from '@grpc/grpc-js'
import type { FeedMessage } from '../core/change-feed.js'

/** The method whose messages are encoded once for every stream. */
const METHOD = 'WatchChanges'

/**
 * The change feed tells each message to every subscriber (each gateway replica's stream), and grpc-js
 * encodes what a stream writes, so a message went through protobuf once per subscriber: after a large
 * fixtures import, a good part of the objects service's thread per subscriber (loadtest/README.md, the
 * feed's encoding; `loadtest/autocannon/feed-costs.mjs` measures it).
 * A message is now encoded the first time a stream writes it, with the method's own serializer (the same
 * bytes), and every other stream writes those bytes.
 */
export interface FeedEncoding {
  /** the service definition whose WatchChanges writes encoded messages as they are */
  definition: grpc.ServiceDefinition
  /** the bytes of a feed message, encoded once however many streams write it */
  encode: (message: FeedMessage) => Buffer
}

export function feedEncoding (definition: grpc.ServiceDefinition): FeedEncoding {
  const method = definition[METHOD]
  if (method === undefined) throw new Error(`the service has no ${METHOD}`)
  const serialize = method.responseSerialize as (message: FeedMessage) => Buffer
  // a message is dropped with the last stream's reference to it
  const encoded = new WeakMap<FeedMessage, Buffer>()
  return {
    definition: { ...definition, [METHOD]: { ...method, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : serialize(value as FeedMessage)) } },
    encode: (message) => {
      let bytes = encoded.get(message)
      if (bytes === undefined) {
        bytes = serialize(message)
        encoded.set(message, bytes)
      }
      return bytes
    },
  }
}
