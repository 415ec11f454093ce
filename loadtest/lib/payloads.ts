/** Request bodies of the write and auth endpoints (spec 2.11, 4.2, 4.6, 4.7). */

/** A short id that keeps one run's objects apart from another's. */
export function makeRunId (now: number = Date.now(), random: () => number = Math.random): string {
  return `${now.toString(36)}${Math.floor(random() * 36 ** 4).toString(36).padStart(4, '0')}`
}

export interface DocumentSpec { runId: string, vu: number, iteration: number, parentId: number }

export function documentInput (spec: DocumentSpec): { data: Record<string, unknown> } {
  const title = `Load test ${spec.runId} vu${spec.vu} it${spec.iteration}`
  return {
    data: {
      object_type: 'document',
      title,
      description: `Written by the k6 write-objects scenario (run ${spec.runId}).`,
      body: `<p>${title}</p>`,
      parents: [spec.parentId],
      tags: ['loadtest'],
    },
  }
}

export function sectionInput (runId: string, parentId = 1): { data: Record<string, unknown> } {
  return { data: { object_type: 'section', title: `Load test ${runId}`, nickname: `loadtest-${runId}`, parents: [parentId] } }
}

export function relationItems (relatedIds: number[], params?: Record<string, unknown>): { data: Array<Record<string, unknown>> } {
  return { data: relatedIds.map((id) => (params === undefined ? { related_id: id } : { related_id: id, params })) }
}

export function childPriorityInput (priority: number): { data: { priority: number } } {
  if (!Number.isInteger(priority) || priority < 1) throw new RangeError(`priority must be a positive integer, got ${priority}`)
  return { data: { priority } }
}

export function loginInput (username: string, password: string): Record<string, string> {
  return { username, password, grant_type: 'password' }
}

export function refreshInput (refreshToken: string): Record<string, string> {
  return { grant_type: 'refresh_token', refresh_token: refreshToken }
}
