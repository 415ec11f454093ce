import { createHash, randomBytes } from 'node:crypto'
import { DomainError } from '@content/platform'
import type { TicketCaller } from '../store/tickets.store.js'
import type { ServiceDeps } from './deps.js'
import { sessionsAlive } from './sessions.service.js'

/** Decisions §17: a ticket opens one stream within this many seconds. */
export const STREAM_TICKET_TTL_SECONDS = 60

/** Tickets are kept by hash: a store that leaks cannot be replayed from. */
const hashOf = (ticket: string): string => createHash('sha256').update(ticket).digest('base64url')

/** The shape of a ticket this service issues (32 url-safe characters); anything else is unknown without a look-up. */
const WELL_FORMED = /^[A-Za-z0-9_-]{32}$/

const storeOf = (deps: Pick<ServiceDeps, 'tickets'>) => {
  if (!deps.tickets) throw new DomainError('SERVICE_UNAVAILABLE', 'stream tickets are not kept by this service')
  return deps.tickets
}

/**
 * A stream opens only for a login that goes on (decisions §17): its access token outlives a logout or a
 * disabling, and a stream it opened would be cut at the gateway's next session check anyway.
 */
async function requireAlive (deps: ServiceDeps, caller: TicketCaller): Promise<void> {
  const [alive] = await sessionsAlive(deps, [{ userId: caller.userId, session: caller.session }])
  if (alive !== true) throw new DomainError('TOKEN_INVALID', 'the login of this token has ended')
}

/** A new single-use ticket for `caller` (a logged-in user whose login goes on), valid STREAM_TICKET_TTL_SECONDS. */
export async function issueStreamTicket (deps: ServiceDeps, caller: TicketCaller): Promise<{ ticket: string, expiresIn: number }> {
  if (caller.userId === 0) throw new DomainError('AUTHENTICATION_REQUIRED', 'a stream ticket needs an access token')
  await requireAlive(deps, caller)
  const ticket = randomBytes(24).toString('base64url')
  await storeOf(deps).put(hashOf(ticket), caller, deps.now() + STREAM_TICKET_TTL_SECONDS * 1000)
  return { ticket, expiresIn: STREAM_TICKET_TTL_SECONDS }
}

/**
 * The caller of a ticket, which is used up (`keep`: left as it is); unknown, used or expired:
 * TICKET_INVALID; its login ended since: TOKEN_INVALID.
 */
export async function redeemStreamTicket (deps: ServiceDeps, ticket: string, keep = false): Promise<TicketCaller> {
  const store = storeOf(deps)
  const hash = hashOf(ticket)
  const caller = !WELL_FORMED.test(ticket) ? null : keep ? await store.peek(hash, deps.now()) : await store.take(hash, deps.now())
  if (caller === null) throw new DomainError('TICKET_INVALID', 'the ticket is unknown, used or expired')
  await requireAlive(deps, caller)
  return caller
}
