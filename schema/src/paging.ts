/** Page sizes of every list endpoint (spec 2.4): the gateway refuses larger ones, the objects service clamps. */
export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100
