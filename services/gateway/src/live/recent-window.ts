/**
 * The latest items of a feed, oldest first, at most `limit` of them. Dropping the oldest from the front
 * of an array one message at a time moves every kept item each time (37 µs a message with 10,000 kept,
 * a create's two events at a time); here the dropped ones stay behind the window until they are as many
 * as it holds, then leave in one move, so each item is moved once on average.
 */
export class RecentWindow<T> {
  private items: T[] = []
  /** where the window starts in `items`: those before it are dropped */
  private start = 0

  constructor (private readonly limit: number) {}

  get size (): number { return this.items.length - this.start }

  /** Adds `item` as the newest; answers the item dropped to keep the limit, if one was. */
  push (item: T): T | undefined {
    this.items.push(item)
    if (this.size <= this.limit) return undefined
    const dropped = this.items[this.start++]
    if (this.start >= Math.max(this.limit, 1)) {
      this.items = this.items.slice(this.start)
      this.start = 0
    }
    return dropped
  }

  clear (): void {
    this.items = []
    this.start = 0
  }

  * [Symbol.iterator] (): Iterator<T> {
    for (let i = this.start; i < this.items.length; i++) yield this.items[i] as T
  }
}
