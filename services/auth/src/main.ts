import { configOrExit, createLogger, onShutdown, openedOrExit, serviceIdentity, startMetrics } from '@content/platform'
import { loadAuthConfig, sessionSettings } from './config.js'
import { buildAuthServer } from './server.js'
import { bootstrapAccounts } from './services/bootstrap.js'
import { openStores } from './stores.js'

const config = configOrExit('auth', () => loadAuthConfig())
const log = createLogger({ service: 'auth', level: config.LOG_LEVEL })

const stores = await openedOrExit(log, 'accounts store', () => openStores(config, log))
await bootstrapAccounts(stores.accounts, {
  adminUsername: config.ADMIN_USERNAME,
  adminPassword: config.ADMIN_PASSWORD,
  log,
})

const server = buildAuthServer({
  log, rpc: { maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS, identity: serviceIdentity('auth', config).verifiers }, accounts: stores.accounts, tokens: stores.tokens, tickets: stores.tickets, settings: sessionSettings(config),
  ...(stores.limiter ? { limiter: stores.limiter } : {}),
})
// not ready while the database cannot be reached (PostgreSQL); back by itself
stores.followAvailability((available) => server.setServing(available))
// scrapable from the moment the service answers
const metrics = await startMetrics(config, log)
const port = await server.listen(config.GRPC_HOST, config.GRPC_PORT)
log.info({
  host: config.GRPC_HOST, port, store: config.STORE, tokens: config.REDIS_URL ? 'redis' : config.STORE === 'mongodb' ? 'sqlite' : config.STORE,
}, 'auth service listening')

onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, async () => {
  await server.shutdown(config.SHUTDOWN_TIMEOUT_MS)
  await stores.close()
  await metrics.close()
})
