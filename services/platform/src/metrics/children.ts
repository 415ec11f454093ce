/**
 * A metric's children by three label values, made once per label set and found through nested maps:
 * prom-client's `labels()` would build a labels object and validate it on every observation.
 */
export class Children<A, B, C, Child> {
  private readonly root = new Map<A, Map<B, Map<C, Child>>>()

  constructor (private readonly create: (a: A, b: B, c: C) => Child) {}

  get (a: A, b: B, c: C): Child {
    let byB = this.root.get(a)
    if (byB === undefined) { byB = new Map(); this.root.set(a, byB) }
    let byC = byB.get(b)
    if (byC === undefined) { byC = new Map(); byB.set(b, byC) }
    let child = byC.get(c)
    if (child === undefined) { child = this.create(a, b, c); byC.set(c, child) }
    return child
  }
}
