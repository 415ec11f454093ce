import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { ProtoGrpcType as ObjectsProto } from './gen/objects.js'
import type { ProtoGrpcType as AuthProto } from './gen/auth.js'
import type { ProtoGrpcType as PosterProto } from './gen/poster.js'

/** Folder that holds `content/v1/*.proto`. */
export const PROTO_ROOT = fileURLToPath(new URL('..', import.meta.url))

export const PROTO_FILES = ['content/v1/objects.proto', 'content/v1/auth.proto', 'content/v1/poster.proto']

/**
 * The one set of loader options. Servers and clients must agree on them: snake_case field names
 * as the spec's JSON, int64 as JS numbers (ids stay below 2^53), enums as strings, defaults filled,
 * no synthetic oneof keys (formatters never see `_title`).
 */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: false,
  includeDirs: [PROTO_ROOT],
}

export type ContentProto = ObjectsProto & AuthProto & PosterProto

let loaded: ContentProto | undefined

/** Loads every contract once per process. */
export function loadContentProtos (): ContentProto {
  if (!loaded) {
    const definition = protoLoader.loadSync(PROTO_FILES, LOADER_OPTIONS)
    loaded = grpc.loadPackageDefinition(definition) as unknown as ContentProto
  }
  return loaded
}

export * as v1 from './gen/index.js'

/** Response metadata of the objects service (objects.proto, change events). */
export const RESPONSE_HEADERS = {
  /** on reads: comma-separated ids of the objects the answer depends on */
  dependsOn: 'x-depends-on',
  /** on writes: a change-feed number at or after the write's last event */
  changeSeq: 'x-change-seq',
  /** on writes with an idempotency key: `true` when the answer is the first answer to that key again */
  idempotentReplayed: 'x-idempotent-replayed',
} as const
