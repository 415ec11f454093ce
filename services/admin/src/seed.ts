import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { toTransportError } from '@content/platform'
import type { Addresses } from './addresses.js'
import { connect } from './clients.js'
import type { AdminCredentials } from './credentials.js'
import { storeFixtureFiles } from './fixture-files.js'
import { FixturesError, accountUsers, parseFixtures, refsOf } from './fixtures.js'
import { describeRpcError } from './rpc-errors.js'

/**
 * Loads a fixtures file completely or not at all. Media files named by `file` go to the poster service
 * first (each checked as an upload); then the auth service validates its part in a dry run; then the
 * objects service validates and writes its part in one transaction (checking permissions against the
 * groups that will exist; a file it refuses leaves nothing written, so a dry run of it first would only
 * plan the whole file twice); only then does the auth service write its part — after the objects, so
 * users' card refs resolve. Files stored for a file that then fails are never attached, and the poster
 * service removes them after its grace period. Returns every ref mapped to its id.
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
    // the text as read unless stored files replaced some `file` paths: a large file is not encoded again
    const json = files.stored === 0 ? text : JSON.stringify({ ...JSON.parse(text) as object, objects: files.objects })

    await clients.auth.ImportAccounts({ groups: fixtures.groups, users: accountUsers(fixtures), dry_run: true })
    const answer = await clients.objects.ImportFixtures({ fixtures_json: json, known_groups: knownGroups, dry_run: false, answer_ref_ids: true })
    const refs = refsOf(fixtures.objects, answer)
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
