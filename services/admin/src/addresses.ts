import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export interface Addresses {
  objects: string
  auth: string
  poster: string
}

/**
 * Where the services are: `OBJECTS_SERVICE_ADDR`/`AUTH_SERVICE_ADDR`/`POSTER_SERVICE_ADDR` when set, else
 * the `services.json` that `npm start` writes in DATA_DIR, else the services' default ports.
 */
export function resolveAddresses (env: NodeJS.ProcessEnv = process.env): Addresses {
  const file = join(resolve(env.DATA_DIR || 'data'), 'services.json')
  const written = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Partial<Addresses> : {}
  return {
    objects: env.OBJECTS_SERVICE_ADDR || written.objects || '127.0.0.1:50051',
    auth: env.AUTH_SERVICE_ADDR || written.auth || '127.0.0.1:50052',
    poster: env.POSTER_SERVICE_ADDR || written.poster || '127.0.0.1:50053',
  }
}
