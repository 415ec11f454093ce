import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { toTransportError } from '@content/platform'
import type { Addresses } from './addresses.js'
import { connect } from './clients.js'
import type { AdminCredentials } from './credentials.js'
import { storeFixtureFiles } from './fixture-files.js'
import { FixturesError, accountUsers, parseFixtures } from './fixtures.js'
import { describeRpcError } from './rpc-errors.js'

/**
 * Loads a fixtures file completely or not at all. Media files named by `file` go to the poster service
 * first (each checked as an upload); then both services validate their part in a dry run (the objects
 * service checks permissions against the groups that will exist); only then does each write its part in
 * one transaction of its own — objects first, so users' card refs resolve. Files stored for a file that
 * then fails are never attached, and the poster service removes them after its grace period.
 * Returns every ref mapped to its id.
 */
export async function seedFile (path: string, addresses: Addresses, credentials: AdminCredentials): Promise<Record<string, number>> {
  const file = resolve(path)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new FixturesError([`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`])
  }
  const fixtures = parseFixtures(text)
  const clients = await connect(addresses, credentials)
  try {
    const files = await storeFixtureFiles(fixtures.objects, dirname(file), clients)
    if (files.problems.length > 0) throw new FixturesError(files.problems)
    const existing = await clients.auth.ListGroups({})
    const knownGroups = [...new Set([...existing.groups.map((g) => g.name), ...fixtures.groups.map((g) => g.name)])]
    const objects = { fixtures_json: JSON.stringify({ ...JSON.parse(text) as object, objects: files.objects }), known_groups: knownGroups }

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
