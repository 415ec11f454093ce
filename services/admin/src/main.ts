#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { ConfigError, present } from '@content/platform'
import { createKey, deleteUser, expiryOf, listGroups, listKeys, listUsers, revokeKey, setDisabled, setPassword, showUser } from './accounts.js'
import { resolveAddresses } from './addresses.js'
import { connect, type AdminClients } from './clients.js'
import { exportCommand, importCommand } from './backup/commands.js'
import { BackupError } from './backup/lines.js'
import { addGroup, addUser, setPermissions } from './commands.js'
import { adminCredentials, readSecret } from './credentials.js'
import { FixturesError } from './fixtures.js'
import type { Printed } from './printed.js'
import { describeRpcError } from './rpc-errors.js'
import { migrateAll } from './migrate.js'
import { seedFile } from './seed.js'
import { CredentialsError, UsageError } from './usage-error.js'
import { addWebhook, listDeliveries, listWebhooks, redeliver, removeWebhook } from './webhooks.js'

const USAGE = `usage: npm run admin -- <command> [--json]
  users list                               every user: id, name, groups, disabled
  users show <username>
  users add <username> [--groups a,b] [--name <name>] [--email <email>] [--card <object id>]
  users passwd <username>                  sets a new password; the user's earlier logins can no longer refresh
  users disable <username> | enable <username>   a disabled user cannot log in, refresh or use its API keys
  users delete <username>                  the user and its API keys
  groups list
  groups add <name> [--backend]            members of a --backend group may write
  keys create --name <name> [--groups a,b] [--expires 90d|12h|2027-01-31] [--user <username>]
                                           a long-lived API key for a machine, shown once; send it as
                                           Authorization: Bearer <key>; it acts as --user (default: you)
  keys list                                id, name, owner, groups, expiry, last use; never the key
  keys revoke <id>
  permissions set <object> [--read a,b] [--write c]   replace an object's read and write groups
  seed <fixtures.json>                     load a fixtures file; the last line printed maps every ref to its id
  export [--out <file>|-]                  the whole content (objects, tree, relations, media files, groups, users,
                                           webhooks) as one NDJSON file (docs/backup.md); default stdout
  import [--in <file>|-]                   an export into an empty system, checked whole before anything is
                                           written; default stdin
  migrate                                  bring every service's store to this release's schema (needs no running
                                           service; reads the services' store settings: STORE, DATA_DIR, DATABASE_URL …)
  webhooks add <url> --events <type,…|*> [--secret whsec_…]   subscribe a receiver; prints its secret once
  webhooks list                            subscriptions with their pending and failed deliveries
  webhooks remove <id>
  webhooks deliveries <id> [--limit n]     newest first: status, attempts, last answer
  webhooks redeliver <delivery-id>         send a delivery again, with the same webhook-id
  --json                                   (every command) print one JSON value as the last line instead of text
  --help, --version
Passwords are never taken from the command line: users add and users passwd ask for the new one on the
terminal, or read the first line of stdin when it is not one.
Every command acts as an administrator: ADMIN_USERNAME (default admin) with the password in ADMIN_PASSWORD
or, when unset, asked for on the terminal. Calls are signed with SERVICE_SECRET, else the
DATA_DIR/service-secret that npm start keeps. Services are found through OBJECTS_SERVICE_ADDR /
AUTH_SERVICE_ADDR / POSTER_SERVICE_ADDR, else DATA_DIR/services.json (written by npm start).
Event types: object.created object.updated object.deleted relation.created relation.updated relation.deleted
  child.added child.updated child.removed permissions.changed file.changed object.trashed object.restored
  object.published object.unpublished`

/** Text for people, or with --json one JSON value as the last line. */
const print = (printed: Printed, json: boolean | undefined) => console.log(json ? JSON.stringify(printed.json) : printed.text)

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)

type Values = {
  groups?: string, name?: string, email?: string, backend?: boolean, read?: string, write?: string, card?: string,
  events?: string, secret?: string, limit?: string, expires?: string, user?: string, out?: string, in?: string
}

/** A command checked against the command line; `secret` names a password it reads before connecting. */
interface Command { secret?: string, run: (clients: AdminClients, secret: string) => Promise<Printed> }

function usersCommand (verb: string | undefined, arg: string | undefined, count: number, values: Values): Command {
  if (verb === 'list' && count === 2) return { run: listUsers }
  if (!arg || count !== 3) throw new UsageError(`users ${verb ?? ''}: wrong arguments`)
  switch (verb) {
    case 'show': return { run: (c) => showUser(c, arg) }
    case 'passwd': return { secret: `new password of ${arg}: `, run: (c, password) => setPassword(c, arg, password) }
    case 'disable': return { run: (c) => setDisabled(c, arg, true) }
    case 'enable': return { run: (c) => setDisabled(c, arg, false) }
    case 'delete': return { run: (c) => deleteUser(c, arg) }
    case 'add': {
      if (values.card !== undefined && !/^[1-9]\d{0,15}$/.test(values.card)) throw new UsageError('--card takes an object id')
      return {
        secret: `new password of ${arg}: `,
        run: (c, password) => addUser(c, arg, {
          password, groups: list(values.groups), name: values.name ?? '', email: values.email ?? '',
          ...(values.card === undefined ? {} : { card_id: Number(values.card) }),
        }),
      }
    }
    default: throw new UsageError(`unknown command: users ${verb}`)
  }
}

function keysCommand (verb: string | undefined, arg: string | undefined, count: number, values: Values): Command {
  if (verb === 'list' && count === 2) return { run: listKeys }
  if (verb === 'revoke' && arg && count === 3) return { run: (c) => revokeKey(c, arg) }
  if (verb === 'create' && count === 2) {
    const name = values.name
    if (!name) throw new UsageError('keys create needs --name')
    const expiresAt = expiryOf(values.expires, Date.now())
    return { run: (c) => createKey(c, { name, groups: list(values.groups), expiresAt, owner: values.user }) }
  }
  throw new UsageError(`keys ${verb ?? ''}: wrong arguments`)
}

/** The webhooks command named, checked before anything is sent. */
function webhooksCommand (verb: string | undefined, arg: string | undefined, count: number, values: Values): Command {
  if (verb === 'list' && count === 2) return { run: listWebhooks }
  if (!arg || count !== 3) throw new UsageError(`webhooks ${verb ?? ''}: wrong arguments`)
  switch (verb) {
    case 'add': return { run: (c) => addWebhook(c, arg, list(values.events), values.secret ?? '') }
    case 'remove': return { run: (c) => removeWebhook(c, arg) }
    case 'deliveries': {
      if (values.limit !== undefined && !/^[1-9]\d{0,3}$/.test(values.limit)) throw new UsageError('--limit takes a number from 1 to 1000')
      return { run: (c) => listDeliveries(c, arg, Number(values.limit ?? 50)) }
    }
    case 'redeliver': return { run: (c) => redeliver(c, arg) }
    default: throw new UsageError(`unknown command: webhooks ${verb}`)
  }
}

function commandFor (positionals: string[], values: Values): Command {
  const [area, verb, arg] = positionals
  const count = positionals.length
  switch (area) {
    case 'users': return usersCommand(verb, arg, count, values)
    case 'keys': return keysCommand(verb, arg, count, values)
    case 'webhooks': return webhooksCommand(verb, arg, count, values)
    case 'groups':
      if (verb === 'list' && count === 2) return { run: listGroups }
      if (verb === 'add' && arg && count === 3) return { run: (c) => addGroup(c, arg, values.backend ?? false) }
      break
    case 'export':
      if (count === 1) return { run: (c) => exportCommand(c, values.out ?? '-') }
      break
    case 'import':
      if (count === 1) return { run: (c) => importCommand(c, values.in ?? '-') }
      break
    case 'permissions':
      if (verb === 'set' && arg && count === 3) return { run: (c) => setPermissions(c, arg, { read: list(values.read), write: list(values.write) }) }
      break
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`)
}

async function run (argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      groups: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, backend: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' }, read: { type: 'string' }, write: { type: 'string' },
      card: { type: 'string' }, events: { type: 'string' }, secret: { type: 'string' }, limit: { type: 'string' },
      expires: { type: 'string' }, user: { type: 'string' }, json: { type: 'boolean', default: false },
      out: { type: 'string' }, in: { type: 'string' },
    },
  })
  if (values.version) {
    console.log(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version)
    return
  }
  if (values.help || positionals[0] === 'help') {
    console.log(USAGE)
    return
  }
  if (positionals.length === 0) throw new UsageError('')
  if (positionals[0] === 'migrate') {
    if (positionals.length !== 1) throw new UsageError('migrate takes no arguments')
    print(await migrateAll(process.env), values.json)
    return
  }
  const addresses = resolveAddresses()
  if (positionals[0] === 'seed' && positionals.length === 2) {
    const refs = await seedFile(present(positionals[1], 'the fixtures file'), addresses, await adminCredentials())
    console.log(JSON.stringify(refs))
    return
  }
  const command = commandFor(positionals, values)
  const credentials = await adminCredentials()
  const secret = command.secret === undefined ? '' : await readSecret(command.secret)
  const clients = await connect(addresses, credentials)
  try {
    const printed = await command.run(clients, secret)
    // an export written to stdout keeps stdout for itself: its summary goes to stderr
    if (positionals[0] === 'export' && (values.out ?? '-') === '-') console.error(values.json ? JSON.stringify(printed.json) : printed.text)
    else print(printed, values.json)
  } finally {
    clients.close()
  }
}

try {
  await run(process.argv.slice(2))
} catch (err) {
  const usage = err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
  if (err instanceof CredentialsError || err instanceof ConfigError) {
    console.error(err.message)
    process.exitCode = 2
  } else if (usage) {
    if ((err as Error).message) console.error((err as Error).message)
    console.error(USAGE)
    process.exitCode = 2
  } else {
    console.error(err instanceof FixturesError || err instanceof BackupError ? err.message : `error: ${describeRpcError(err)}`)
    process.exitCode = 1
  }
}
