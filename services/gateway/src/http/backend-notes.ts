import { RESPONSE_HEADERS } from '@content/protos'

const DIGITS = /^\d{1,15}$/

/**
 * What the objects service's answers to one request said in their headers: the objects a read depends
 * on (null once any answer did not say, or said something malformed: such a read is not cached) and
 * the highest change number a write committed at (0: none said).
 */
export interface BackendNotes {
  readonly dependsOn: readonly number[] | null
  readonly changeSeq: number
  onHeaders(headers: Record<string, string>): void
}

export function backendNotes (): BackendNotes {
  let deps: number[] | null = []
  let answers = 0
  let changeSeq = 0
  return {
    get dependsOn () { return answers === 0 ? null : deps },
    get changeSeq () { return changeSeq },
    onHeaders (headers) {
      answers += 1
      const seq = headers[RESPONSE_HEADERS.changeSeq]
      if (seq !== undefined && DIGITS.test(seq)) changeSeq = Math.max(changeSeq, Number(seq))
      const list = headers[RESPONSE_HEADERS.dependsOn]
      if (deps === null) return
      if (list === undefined) return void (deps = null)
      for (const id of list === '' ? [] : list.split(',')) {
        if (!DIGITS.test(id)) return void (deps = null)
        deps.push(Number(id))
      }
    },
  }
}
