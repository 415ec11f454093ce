import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { status } from '@grpc/grpc-js'
import { toTransportError } from '@content/platform'
import type { Addresses } from './addresses.js'
import { connect } from './clients.js'
import { FixturesError, accountUsers, parseFixtures } from './fixtures.js'

/**
 * Loads a fixtures file completely or not at all. Both services first validate their part in a dry
 * run (the objects service checks permissions against the groups that will exist); only then does
 * each write its part in one transaction of its own — objects first, so users' card refs resolve.
 * Returns every ref mapped to its id.
 */
export async function seedFile (path: string, addresses: Addresses): Promise<Record<string, number>> {
  const file = resolve(path)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new FixturesError([`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`])
  }
  const fixtures = parseFixtures(text)
  const clients = connect(addresses)
  try {
    const existing = await clients.auth.ListGroups({})
    const knownGroups = [...new Set([...existing.groups.map((g) => g.name), ...fixtures.groups.map((g) => g.name)])]
    const objects = { fixtures_json: text, known_groups: knownGroups, base_dir: dirname(file) }

    await clients.auth.ImportAccounts({ groups: fixtures.groups, users: accountUsers(fixtures), dry_run: true })
    await clients.objects.ImportFixtures({ ...objects, dry_run: true })
    const { refs } = await clients.objects.ImportFixtures({ ...objects, dry_run: false })
    await clients.auth.ImportAccounts({ groups: fixtures.groups, users: accountUsers(fixtures, refs), dry_run: false })
    return refs
  } catch (err) {
    // A service that rejected the file says why; one that could not answer is not the file's fault.
    if (err instanceof FixturesError || !toTransportError(err).expose) throw err
    throw new FixturesError([describeRpcError(err)])
  } finally {
    clients.close()
  }
}

/** A backend's rejection as one readable line (its message and details), or why it could not answer. */
export function describeRpcError (err: unknown): string {
  const mapped = toTransportError(err)
  if (mapped.grpcStatus === status.UNAVAILABLE || mapped.grpcStatus === status.DEADLINE_EXCEEDED) {
    return `the service did not answer (${mapped.reason}); is the system running?`
  }
  if (!mapped.expose) return err instanceof Error ? err.message : String(err)
  const details = mapped.details === null ? '' : `: ${typeof mapped.details === 'string' ? mapped.details : JSON.stringify(mapped.details)}`
  return `${mapped.message}${details}`
}
