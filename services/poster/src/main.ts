import { configOrExit, createLogger, loadConfig, onShutdown } from '@content/platform'
import { posterEnv } from './config.js'
import { buildPosterServer } from './server.js'

const config = configOrExit('poster', () => loadConfig(posterEnv))
const log = createLogger({ service: 'poster', level: config.LOG_LEVEL })

const rpc = buildPosterServer(log)
const port = await rpc.listen(config.GRPC_HOST, config.GRPC_PORT)
log.info({ host: config.GRPC_HOST, port }, 'poster service listening')

onShutdown(log, config.SHUTDOWN_TIMEOUT_MS, () => rpc.shutdown(config.SHUTDOWN_TIMEOUT_MS))
