import { present } from '@content/platform'
import type { Collection } from 'mongodb'

/** A sequence's counter: the last number it gave (schema.mongo.ts keeps them in `counters`). */
interface Counter { _id: string, seq: number }

/** Numbers one reservation takes: a process's creates reserve a block this often. */
const BLOCK = 100

/**
 * Numbers of named sequences (object ids, geo tag ids, category ids), handed out by this process from
 * blocks it reserves with one write of the sequence's counter document, outside any transaction. A
 * number reserved inside the write transaction that uses it would make every concurrent create write
 * that one document, and MongoDB aborts conflicting transactions instead of making them wait: creates
 * would retry each other one transaction at a time. A block's numbers increase in this process; several
 * processes interleave theirs, and a number whose transaction aborts, or that a stopped process held, is
 * never used (ids have gaps, as SQLite's do after a rollback).
 */
export class IdBlocks {
  private readonly blocks = new Map<string, { next: number, last: number }>()
  private readonly refills = new Map<string, Promise<void>>()
  constructor (private readonly counters: Collection<Counter>, private readonly size = BLOCK) {}

  /** Reserves `count` consecutive numbers of the sequence; answers the first. */
  async take (sequence: string, count = 1): Promise<number> {
    for (;;) {
      const block = this.blocks.get(sequence)
      if (block !== undefined && block.last - block.next + 1 >= count) {
        const first = block.next
        block.next += count
        return first
      }
      let refill = this.refills.get(sequence)
      if (refill === undefined) {
        refill = this.reserve(sequence, Math.max(count, this.size)).finally(() => this.refills.delete(sequence))
        this.refills.set(sequence, refill)
      }
      await refill
    }
  }

  /** A sequence's counter is at least `seq`: numbers up to it are never handed out (the publication's). */
  async atLeast (sequence: string, seq: number): Promise<void> {
    await this.counters.updateOne({ _id: sequence }, { $max: { seq } }, { upsert: true })
  }

  private async reserve (sequence: string, count: number): Promise<void> {
    const doc = await this.counters.findOneAndUpdate({ _id: sequence }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after' })
    const last = present(doc, `the ${sequence} counter`).seq
    this.blocks.set(sequence, { next: last - count + 1, last })
  }
}
