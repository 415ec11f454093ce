import { DomainError } from '@content/platform'
import type { Redis } from 'ioredis'
import { parseTicketCaller, type TicketCaller, type TicketsStore } from '../tickets.store.js'
import { KEY_PREFIX } from './tokens.redis.js'

const ticketKey = (hash: string) => `${KEY_PREFIX}ticket:${hash}`

const unavailable = () => new DomainError('SERVICE_UNAVAILABLE', 'ticket store unavailable; try again later')

/** A ticket's caller as Redis answers it (null: no key, as an expired one is none). */
async function read (get: () => Promise<string | null>): Promise<TicketCaller | null> {
  let text: string | null
  try {
    text = await get()
  } catch {
    throw unavailable()
  }
  return text === null ? null : parseTicketCaller(text)
}

/** Stream tickets in Redis: each key expires with its ticket (PXAT); GETDEL takes it once. */
export function createRedisTicketsStore (redis: Redis): TicketsStore {
  return {
    async put (hash, caller, expiresAt) {
      try {
        await redis.set(ticketKey(hash), JSON.stringify(caller), 'PXAT', expiresAt)
      } catch {
        throw unavailable()
      }
    },
    take: (hash) => read(() => redis.getdel(ticketKey(hash))),
    peek: (hash) => read(() => redis.get(ticketKey(hash))),
  }
}
