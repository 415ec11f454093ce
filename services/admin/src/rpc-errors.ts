import { status } from '@grpc/grpc-js'
import { toTransportError } from '@content/platform'

/** A backend's rejection as one readable line (its message and details), or why it could not answer. */
export function describeRpcError (err: unknown): string {
  const mapped = toTransportError(err)
  if (mapped.grpcStatus === status.UNAVAILABLE || mapped.grpcStatus === status.DEADLINE_EXCEEDED) {
    return `the service did not answer (${mapped.reason}); is the system running?`
  }
  if (!mapped.expose) return err instanceof Error ? err.message : String(err)
  const details = mapped.details === null ? '' : `: ${typeof mapped.details === 'string' ? mapped.details : JSON.stringify(mapped.details)}`
  return `${mapped.message} (${mapped.reason})${details}`
}
