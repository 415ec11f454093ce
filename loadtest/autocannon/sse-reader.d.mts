export interface SseEvent { id: string, event: string, data: string }
export function sseReader (onEvent: (event: SseEvent) => void): (chunk: string) => void
