/**
 * Media traffic: GET /poster/{id} at a random size of a few, then GET of the thumbnail it names (the
 * first request of a size renders it, the rest are cache hits). With IMAGE_FILE (a local JPEG) and
 * credentials, every iteration also uploads that file, creates an image from it under the run's
 * section, reads its original and deletes it again.
 *
 *   k6 run -e BASE_URL=http://localhost:8080 -e PRESET=average loadtest/k6/media.ts
 *   k6 run -e IMAGE_FILE=./photo.jpg -e ADMIN_PASSWORD=… -e PRESET=smoke loadtest/k6/media.ts
 */
import http from 'k6/http'
import { check, sleep } from 'k6'
import { credentialsOf, readConfig } from '../lib/config.ts'
import { listedObjects, objectOf } from '../lib/envelope.ts'
import { makeRunId, sectionInput } from '../lib/payloads.ts'
import { pick } from '../lib/sample.ts'
import { needsRenewal, type Session } from '../lib/session.ts'
import { call, expectEnvelope, healthGate, login } from './lib/http.ts'
import { runOptions } from './lib/presets.ts'
import { summaryHandler } from '../lib/summary.ts'

const imageFile = __ENV.IMAGE_FILE
const config = readConfig(__ENV, { needsCredentials: imageFile !== undefined, script: 'media' })
const BASE = config.baseUrl
// init context: k6 reads files only here
const image: ArrayBuffer | undefined = imageFile ? open(imageFile, 'b') : undefined

export const options = runOptions(config, {
  media: {
    overall: { p95: 500, p99: 1500 },
    perName: {
      'GET /poster/{id}': { p95: 200, p99: 500 },
      'GET /thumbnails/…': { p95: 300, p99: 1000 },
    },
  },
})

/** A few sizes, so that thumbnails are rendered once each and then served from the caches. */
const SIZES = ['', '?width=320', '?width=160&height=160', '?height=240']

interface MediaData { posterIds: number[], sectionId?: number }

let session: Session | undefined
function token (): string {
  if (session === undefined || needsRenewal(session, Date.now())) session = login(BASE, ...credentialsOf(config))
  return session.accessToken
}

export function setup (): MediaData {
  healthGate(BASE)
  const r = call('GET', `${BASE}/objects?filter[object_type]=image,document&page_size=100`, 'GET /objects')
  const posterIds = listedObjects(r.body).map((o) => o.id)
  if (posterIds.length === 0) throw new Error('GET /objects listed no image or document: load fixtures first (see loadtest/k6/README.md)')
  if (image === undefined) return { posterIds }
  const section = objectOf(call('POST', `${BASE}/objects`, 'POST /objects', { token: token(), body: sectionInput(makeRunId()) }).body)
  if (section === undefined) throw new Error('creating the run\'s section failed')
  return { posterIds, sectionId: section.id }
}

export default function (data: MediaData): void {
  readPoster(pick(data.posterIds), pick(SIZES))
  if (image !== undefined && data.sectionId !== undefined) uploadAndRemove(image, data.sectionId)
  sleep(config.thinkTimeSeconds)
}

function readPoster (id: number, size: string): void {
  const name = 'GET /poster/{id}'
  const r = call('GET', `${BASE}/poster/${id}${size}`, name)
  expectEnvelope(r, name, 200, { api: 'poster' })
  const uri = (r.body as { data?: { uri?: unknown } } | undefined)?.data?.uri
  if (typeof uri !== 'string') return
  const thumb = http.get(uri, { tags: { name: 'GET /thumbnails/…' }, responseType: 'none' })
  check(thumb, {
    'thumbnail → 200': (t) => t.status === 200,
    'thumbnail is an image': (t) => /^image\/(jpeg|png)$/.test(String(t.headers['Content-Type'] ?? '')),
  })
}

function uploadAndRemove (bytes: ArrayBuffer, sectionId: number): void {
  const up = http.request('POST', `${BASE}/files/image/k6-${__VU}-${__ITER}.jpg`, bytes, {
    headers: { 'Content-Type': 'image/jpeg', Authorization: `Bearer ${token()}` }, tags: { name: 'POST /files/{type}/{name}' }, responseType: 'text',
  })
  const uploadToken = (up.json() as { data?: { upload_token?: unknown } } | null)?.data?.upload_token
  if (!check(up, { 'upload → 200': (u) => u.status === 200 }) || typeof uploadToken !== 'string') return
  const created = call('POST', `${BASE}/objects`, 'POST /objects', {
    token: token(), body: { data: { object_type: 'image', title: `k6 ${__VU}/${__ITER}`, parents: [sectionId], upload_token: uploadToken } },
  })
  expectEnvelope(created, 'POST /objects', 201, { api: 'objects' })
  const object = objectOf(created.body) as { id: number, uri?: unknown } | undefined
  if (object === undefined) return
  if (typeof object.uri === 'string') {
    const original = http.get(object.uri, { tags: { name: 'GET /media/{id}/{name}' }, responseType: 'none' })
    check(original, { 'original → 200': (o) => o.status === 200 })
  }
  const removed = call('DELETE', `${BASE}/objects/${object.id}`, 'DELETE /objects/{id}', { token: token() })
  check(removed, { 'delete → 204': (d) => d.res.status === 204 })
}

export function teardown (data: MediaData): void {
  if (data.sectionId === undefined) return
  call('DELETE', `${BASE}/objects/${data.sectionId}`, 'DELETE /objects/{id}', { token: token() })
}

export const handleSummary = summaryHandler(config.testId, config.summaryFile)
