/** A write body as a client sends it and the gateway forwards it: `{"data": …}` as JSON text. */
export const bodyOf = (data: unknown): string => JSON.stringify({ data })
