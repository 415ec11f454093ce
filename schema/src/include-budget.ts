/**
 * The include budget of decisions §15, defined once for the gateway's grammar and the objects service's
 * check: the worst case of a page with `include` is `page_size` × the product of `include_limit` over
 * each path's steps, summed over the paths. A page past the budget is refused before any work, naming
 * `include_limit`, so that no request can ask for more related objects than the budget.
 */

/** `INCLUDE_BUDGET`'s default: objects a page with include may add at worst. */
export const DEFAULT_INCLUDE_BUDGET = 5_000

/** The most objects `include` can add to a page of `pageSize` objects (each path a list of relation names). */
export function includeWorstCase (pageSize: number, include: readonly (readonly string[])[], limit: number): number {
  let sum = 0
  for (const path of include) sum += pageSize * limit ** path.length
  return sum
}

/** Why a page's include passes the budget, or null when it does not. */
export function includeBudgetProblem (pageSize: number, include: readonly (readonly string[])[], limit: number, budget: number): string | null {
  const worst = includeWorstCase(pageSize, include, limit)
  if (worst <= budget) return null
  return `include_limit: page_size × include_limit per step of each include path comes to ${worst} objects, over the budget of ${budget}; lower include_limit or page_size, or include fewer or shorter paths`
}
