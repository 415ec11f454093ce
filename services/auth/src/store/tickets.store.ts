/** Who a live-stream ticket stands for (decisions §17): the caller the gateway verified when it was issued. */
export interface TicketCaller {
  userId: number
  groups: string[]
  mayWrite: boolean
  /** the login of the token the ticket was traded for ('' for none) */
  session: string
}

/**
 * Single-use tickets of live streams, kept by hash where every gateway's redemption reaches: taken once,
 * atomically, whichever replica asks. Adapters that cannot answer throw SERVICE_UNAVAILABLE.
 */
export interface TicketsStore {
  put(hash: string, caller: TicketCaller, expiresAt: number): Promise<void>
  /** the ticket's caller, removing it; null when unknown, used or expired */
  take(hash: string, now: number): Promise<TicketCaller | null>
  /** as `take`, the ticket left where it is */
  peek(hash: string, now: number): Promise<TicketCaller | null>
}

/** A stored caller, read back; anything else is no caller. */
export function parseTicketCaller (text: string): TicketCaller | null {
  const value = JSON.parse(text) as Partial<TicketCaller>
  if (typeof value.userId !== 'number' || !Array.isArray(value.groups) || typeof value.mayWrite !== 'boolean') return null
  return { userId: value.userId, groups: value.groups.map(String), mayWrite: value.mayWrite, session: typeof value.session === 'string' ? value.session : '' }
}
