import { etagOf } from './conditional.js'
import type { Reply, RequestContext } from './context.js'

/**
 * The replies built so far from each decoded answer that several requests received: coalesced members
 * that asked the same with the same token get the very same message (calls/coalesced-calls.ts), whose
 * handlers only read it. Keyed by the request's method and URL.
 */
const replies = new WeakMap<object, Map<string, Reply>>()

export const markShared = (answer: object): void => {
  if (!replies.has(answer)) replies.set(answer, new Map())
}

const serializations = new WeakMap<Reply, { json: Buffer, etag?: string }>()

/**
 * The reply `build` makes from `answer`, made once for the requests that share the answer and have the
 * same method and URL: what a reply built from an answer reads of its request (the envelope, the format
 * context, the paging) comes from those alone. An answer of one request is built as usual.
 */
export function replyOnce (answer: object, ctx: RequestContext, build: () => Reply): Reply {
  const built = replies.get(answer)
  if (built === undefined) return build()
  const key = `${ctx.info.method} ${ctx.info.url}?${ctx.info.query.toString()}`
  let reply = built.get(key)
  if (reply === undefined) {
    reply = build()
    built.set(key, reply)
    // as bytes: each request's write then sends them without encoding the text again
    serializations.set(reply, { json: Buffer.from(JSON.stringify(reply.body)) })
  }
  return reply
}

/** The JSON of a reply's body and, for a read, its ETag: computed once for a reply `replyOnce` shares. */
export function serialized (reply: Reply, read: boolean): { json: string | Buffer, etag?: string } {
  const once = serializations.get(reply)
  if (once === undefined) {
    const json = JSON.stringify(reply.body)
    return read ? { json, etag: etagOf(json) } : { json }
  }
  if (!read) return { json: once.json }
  once.etag ??= etagOf(once.json)
  return once
}
