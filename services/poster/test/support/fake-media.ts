import { testIdentity } from '@content/platform/testing'
import { DomainError, createLogger, createRpcServer, type RpcServer, type ServiceImpl } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { must } from './must.js'

/** An object as the fake objects service knows it. */
export interface FakeObject {
  id: number
  object_type: string
  file: v1.MediaFile | null
  free_access: boolean
  /** ids of related images */
  poster?: number
  attached?: number
}

/**
 * The objects service's MediaService, faked in memory and served over real gRPC: it authorises writers
 * (`may_write`), hands out tokens, answers objects by id, and says which keys are in use.
 */
export class FakeMedia {
  readonly objects = new Map<number, FakeObject>()
  readonly registered: { caller: v1.Caller__Output | null, object_type: string, file: v1.MediaFile__Output | null, upload_token: string }[] = []
  /** keys objects use (pending uploads count too, unless `expired`) */
  readonly used = new Set<string>()
  readonly expired = new Set<string>()
  readonly filesInUseAsked: string[][] = []
  readonly requestIds: string[] = []

  put (o: FakeObject): FakeObject {
    this.objects.set(o.id, o)
    return o
  }

  service (): ServiceImpl<v1.MediaServiceHandlers> {
    return {
      AuthorizeUpload: async (req, call) => {
        this.requestIds.push(String(call.metadata.get('x-request-id')[0] ?? ''))
        this.checkWriter(req.caller)
        if (!['image', 'video', 'audio', 'b_e_file'].includes(req.object_type)) {
          throw new DomainError('TYPE_TAKES_NO_FILE', 'takes no file')
        }
        return {}
      },
      RegisterUpload: async (req) => {
        this.checkWriter(req.caller)
        const upload_token = `token-${this.registered.length + 1}`
        this.registered.push({ caller: req.caller, object_type: req.object_type, file: req.file, upload_token })
        return { upload_token, expires_at: 1_700_000_000_000 }
      },
      FilesInUse: async (req) => {
        this.filesInUseAsked.push(req.keys)
        const pending = new Set(this.registered.map((r) => r.file?.key).filter((k) => k !== undefined && !this.expired.has(k)))
        return { keys: req.keys.filter((k) => this.used.has(k) || pending.has(k)) }
      },
      GetMedia: async (req) => {
        const object = this.objects.get(Number(req.object_id))
        if (!/^[0-9]+$/.test(req.object_id) || object === undefined) throw new DomainError('OBJECT_NOT_FOUND', 'no such object')
        if (!object.free_access && !req.caller?.user_id) throw new DomainError('OBJECT_PROTECTED', 'log in')
        const related = (id: number | undefined) => (id === undefined ? undefined : this.mediaObject(must(this.objects.get(id))))
        return req.with_candidates
          ? { object: this.mediaObject(object), poster: related(object.poster), attached: related(object.attached) }
          : { object: this.mediaObject(object) }
      },
    }
  }

  private mediaObject (o: FakeObject): v1.MediaObject {
    return { id: o.id, object_type: o.object_type, free_access: o.free_access, ...(o.file ? { file: o.file } : {}) }
  }

  private checkWriter (caller: v1.Caller__Output | null): void {
    if (!caller?.user_id) throw new DomainError('AUTHENTICATION_REQUIRED', 'a token is required')
    if (!caller.may_write) throw new DomainError('PERMISSION_DENIED', 'not a writer')
  }
}

/** The fake on 127.0.0.1:0. */
export async function startFakeMedia (): Promise<{ fake: FakeMedia, address: string, rpc: RpcServer }> {
  const fake = new FakeMedia()
  const rpc = createRpcServer(createLogger({ service: 'fake-objects', level: 'silent' }), { identity: testIdentity('objects').verifiers })
  rpc.add(loadContentProtos().content.v1.MediaService.service, fake.service(), 'content.v1.MediaService')
  const port = await rpc.listen('127.0.0.1', 0)
  return { fake, address: `127.0.0.1:${port}`, rpc }
}
