import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, createLogger, toTransportError, type RpcServer } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { buildPosterServer } from '../../src/server.js'

describe('PosterService over gRPC', () => {
  let rpc: RpcServer
  let client: ReturnType<typeof createClient<v1.PosterServiceDefinition>>

  beforeAll(async () => {
    rpc = buildPosterServer(createLogger({ service: 'poster', level: 'silent' }))
    const port = await rpc.listen('127.0.0.1', 0)
    client = createClient(loadContentProtos().content.v1.PosterService, `127.0.0.1:${port}`, { timeoutMs: 2_000 })
  })
  afterAll(async () => {
    client.close()
    await rpc.shutdown(1_000)
  })

  it('when a poster is asked for, then it answers UNIMPLEMENTED with the NOT_IMPLEMENTED reason (HTTP 501)', async () => {
    const err = await client.GetPoster({ object_id: '1', width: 10, height: 10 }).catch((e: unknown) => e)
    const mapped = toTransportError(err)
    expect(mapped.httpStatus).toBe(501)
    expect(mapped.reason).toBe('NOT_IMPLEMENTED')
  })
})
