import { createRequire } from 'node:module'
import { ERROR_CODES } from '@content/api-schema'
import { openapiDocument } from '../../openapi/document.js'
import type { RouteTable } from '../context.js'
import { ok, type Handler } from '../context.js'
import { staticFile, staticReply } from '../static-file.js'

const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string }

/** One document per route table: it depends on nothing else, so it is built once. */
const documents = new WeakMap<RouteTable, Record<string, unknown>>()

/** `GET {base}/openapi.json`: the OpenAPI 3.1 document of the configuration in force. */
export const openapi: Handler = async (_ctx, deps) => {
  let doc = documents.get(deps.table)
  if (!doc) { doc = openapiDocument(deps.table, { version }); documents.set(deps.table, doc) }
  return ok(doc)
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
/** The `when` texts are Markdown with `code` spans only. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>')

const ERRORS_PAGE = Buffer.from(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Content objects API — errors</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}tr:target{background:#fff3bf}code{font-size:90%}</style>
</head><body><h1>Error codes</h1>
<p>Every error answer has the body <code>{"error":{"status","code","message","details","more_info","url"}}</code>; <code>more_info</code> links to the code's row here.</p>
<table><thead><tr><th>status</th><th>code</th><th>when</th></tr></thead><tbody>
${ERROR_CODES.map((e) => `<tr id="${e.code}"><td>${e.status}</td><td><code>${e.code}</code></td><td>${inline(e.when)}</td></tr>`).join('\n')}
</tbody></table></body></html>
`)
const ERRORS_FILE = staticFile(ERRORS_PAGE, 'text/html; charset=utf-8', 'no-cache', {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
})

/** `GET {base}/docs/errors`: every error code at its own anchor (the target of `more_info`). */
export const errorsPage: Handler = async (ctx) => staticReply(ctx, ERRORS_FILE)
