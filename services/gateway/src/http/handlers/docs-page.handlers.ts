import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { HttpError } from '../errors.js'
import type { Handler } from '../context.js'
import { staticFile, staticReply, type StaticFile } from '../static-file.js'

/** Swagger UI, from its npm package: the reference page works offline, with no CDN. */
const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

const ASSET_CACHE = 'public, max-age=86400'

/** The only files served from the package: a name from the URL never becomes a path. */
const PACKAGE_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

let assets: Map<string, StaticFile> | undefined

/** Read on first use and kept: the bundle is 1.7 MB that most gateways never serve. */
function packageAsset (name: string): StaticFile | undefined {
  assets ??= new Map(Object.entries(PACKAGE_ASSETS).map(([file, type]) => [file, staticFile(readFileSync(join(DIST, file)), type, ASSET_CACHE)]))
  return assets.get(name)
}

/** Per base path: the page and its init script name the document and assets by absolute path. */
const pages = new Map<string, { page: StaticFile, init: StaticFile }>()

// Swagger UI sets inline styles and shows data: images; every script, and every request of "Try it out",
// goes to this origin only.
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

function pagesOf (basePath: string) {
  let found = pages.get(basePath)
  if (found) return found
  const assetsAt = `${basePath}/docs/assets`
  const page = Buffer.from(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Content objects API — reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="${assetsAt}/favicon-32x32.png">
<link rel="stylesheet" href="${assetsAt}/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="${assetsAt}/swagger-ui-bundle.js"></script>
<script src="${assetsAt}/init.js"></script>
</body></html>
`)
  const init = Buffer.from(`window.ui = SwaggerUIBundle(${JSON.stringify({
    url: `${basePath}/openapi.json`, dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: true, persistAuthorization: false,
    validatorUrl: null, defaultModelsExpandDepth: 0,
  })})\n`)
  found = {
    page: staticFile(page, 'text/html; charset=utf-8', 'no-cache', { 'content-security-policy': CSP }),
    init: staticFile(init, 'text/javascript; charset=utf-8', 'no-cache'),
  }
  pages.set(basePath, found)
  return found
}

/** `GET {base}/docs`: the reference page of the live OpenAPI document. */
export const docsPage: Handler = async (ctx, deps) => staticReply(ctx, pagesOf(deps.table.basePath).page)

/** `GET {base}/docs/assets/{file}`: the page's init script, and Swagger UI's files from the npm package. */
export const docsAsset: Handler = async (ctx, deps) => {
  const name = ctx.params.asset ?? ''
  const file = name === 'init.js' ? pagesOf(deps.table.basePath).init : packageAsset(name)
  if (!file) throw new HttpError('ENDPOINT_NOT_FOUND', 'no such asset of the reference page')
  return staticReply(ctx, file)
}
