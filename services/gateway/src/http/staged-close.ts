import type { IncomingMessage, ServerResponse } from 'node:http'

/** How long the read side stays open after such an answer, at most. */
export const LINGER_MS = 2_000

/**
 * Closes the connection of an answer sent before its request body was in (an upload refused midway),
 * in stages as RFC 9112 §9.6 asks: `Connection: close`, our side ends after the answer, and what the
 * client still has in flight is discarded — never forwarded — until it closes, for LINGER_MS at most.
 * Closing at once (Node's way) makes those bytes draw a reset, and clients then lose the answer.
 */
export function closeInStages (req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close')
  const socket = req.socket
  // Node calls this once a `Connection: close` answer is written; its own version destroys at once
  socket.destroySoon = function destroyInStages () {
    this.end()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    timer.unref()
    this.once('close', () => clearTimeout(timer))
  }
  res.once('finish', () => req.resume())
}
