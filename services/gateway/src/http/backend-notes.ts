import { RESPONSE_HEADERS } from '@content/protos'

const DIGITS = /^\d{1,15}$/

/**
 * What the objects service's answers to one request said in their headers: the objects a read depends
 * on (null when no answer said, or any answer did not say or said something malformed: such a read is
 * not cached), the highest change number a write committed at (0: none said), and whether a write's
 * answer is the replay of its Idempotency-Key's first answer.
 */
export class BackendNotes {
  private deps: number[] | null = []
  private answers = 0
  changeSeq = 0
  replayed = false

  get dependsOn (): readonly number[] | null { return this.answers === 0 ? null : this.deps }

  observe (headers: Record<string, string>): void {
    this.answers += 1
    const seq = headers[RESPONSE_HEADERS.changeSeq]
    if (seq !== undefined && DIGITS.test(seq)) this.changeSeq = Math.max(this.changeSeq, Number(seq))
    if (headers[RESPONSE_HEADERS.idempotentReplayed] === 'true') this.replayed = true
    if (this.deps === null) return
    const list = headers[RESPONSE_HEADERS.dependsOn]
    if (list === undefined) {
      this.deps = null
      return
    }
    for (const id of list === '' ? [] : list.split(',')) {
      if (!DIGITS.test(id)) {
        this.deps = null
        return
      }
      this.deps.push(Number(id))
    }
  }
}
