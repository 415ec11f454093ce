#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { resolveAddresses } from './addresses.js'
import { connect } from './clients.js'
import { addGroup, addUser, setPermissions } from './commands.js'
import { FixturesError } from './fixtures.js'
import { describeRpcError } from './rpc-errors.js'
import { seedFile } from './seed.js'
import { UsageError } from './usage-error.js'
import type { Printed } from './printed.js'
import { addWebhook, listDeliveries, listWebhooks, redeliver, removeWebhook } from './webhooks.js'

const USAGE = `usage: npm run admin -- <command>
  users add <username> --password <password> [--groups a,b] [--name <name>] [--email <email>] [--card <object id>]
  groups add <name> [--backend]            members of a --backend group may write
  permissions set <object> [--read a,b] [--write c]   replace an object's read and write groups
  seed <fixtures.json>                     load a fixtures file; the last line printed maps every ref to its id
  webhooks add <url> --events <type,…|*> [--secret whsec_…]   subscribe a receiver; prints its secret once
  webhooks list                            subscriptions with their pending and failed deliveries
  webhooks remove <id>
  webhooks deliveries <id> [--limit n]     newest first: status, attempts, last answer
  webhooks redeliver <delivery-id>         send a delivery again, with the same webhook-id
  --json                                   (every command) print one JSON value as the last line instead of text
Event types: object.created object.updated object.deleted relation.created relation.updated relation.deleted
  child.added child.updated child.removed permissions.changed file.changed
Services are found through OBJECTS_SERVICE_ADDR / AUTH_SERVICE_ADDR, else DATA_DIR/services.json (written by npm start).`

/** Text for people, or with --json one JSON value as the last line. */
const print = (printed: Printed, json: boolean | undefined) => console.log(json ? JSON.stringify(printed.json) : printed.text)

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)

async function run (argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      password: { type: 'string' }, groups: { type: 'string' }, name: { type: 'string' },
      email: { type: 'string' }, backend: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
      read: { type: 'string' }, write: { type: 'string' }, card: { type: 'string' },
      events: { type: 'string' }, secret: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean', default: false },
    },
  })
  const [area, verb, arg] = positionals
  if (values.help || !area) throw new UsageError('')
  const addresses = resolveAddresses()

  if (area === 'webhooks') {
    const command = webhookCommand(verb, arg, positionals.length, values)
    const clients = connect(addresses)
    try {
      print(await command(clients), values.json)
    } finally {
      clients.close()
    }
    return
  }
  if (area === 'seed' && verb && !arg) {
    const refs = await seedFile(verb, addresses)
    console.log(JSON.stringify(refs))
    return
  }
  if (area === 'permissions' && verb === 'set' && arg && positionals.length === 3) {
    const clients = connect(addresses)
    try {
      print(await setPermissions(clients, arg, { read: list(values.read), write: list(values.write) }), values.json)
    } finally {
      clients.close()
    }
    return
  }
  if ((area === 'users' || area === 'groups') && verb === 'add' && arg && positionals.length === 3) {
    if (area === 'users' && !values.password) throw new UsageError('users add needs --password')
    if (values.card !== undefined && !/^[1-9]\d{0,15}$/.test(values.card)) throw new UsageError('--card takes an object id')
    const clients = connect(addresses)
    try {
      print(area === 'users'
        ? await addUser(clients, arg, {
          password: values.password!, groups: list(values.groups), name: values.name ?? '', email: values.email ?? '',
          ...(values.card === undefined ? {} : { card_id: Number(values.card) }),
        })
        : await addGroup(clients, arg, values.backend), values.json)
    } finally {
      clients.close()
    }
    return
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`)
}

type Values = { events?: string, secret?: string, limit?: string }

/** The webhooks command named, checked before anything is sent. */
function webhookCommand (verb: string | undefined, arg: string | undefined, count: number, values: Values): (c: ReturnType<typeof connect>) => Promise<Printed> {
  if (verb === 'list' && count === 2) return listWebhooks
  if (!arg || count !== 3) throw new UsageError(`webhooks ${verb ?? ''}: wrong arguments`)
  switch (verb) {
    case 'add': return (c) => addWebhook(c, arg, list(values.events), values.secret ?? '')
    case 'remove': return (c) => removeWebhook(c, arg)
    case 'deliveries': {
      if (values.limit !== undefined && !/^[1-9]\d{0,3}$/.test(values.limit)) throw new UsageError('--limit takes a number from 1 to 1000')
      return (c) => listDeliveries(c, arg, Number(values.limit ?? 50))
    }
    case 'redeliver': return (c) => redeliver(c, arg)
    default: throw new UsageError(`unknown command: webhooks ${verb}`)
  }
}

try {
  await run(process.argv.slice(2))
} catch (err) {
  const usage = err instanceof UsageError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
  if (usage) {
    if ((err as Error).message) console.error((err as Error).message)
    console.error(USAGE)
    process.exitCode = 2
  } else {
    console.error(err instanceof FixturesError ? err.message : `error: ${describeRpcError(err)}`)
    process.exitCode = 1
  }
}
