export interface Memory { rss: number, heap: number }
export type Memories = Record<string, Memory>
export function memoryOf (text: string): Memory
export function memoryOfServices (metricsUrls: Record<string, string>): Promise<Memories>
export function describeMemory (memory: Memories): string
export const LEAK_BOUND: { bytes: number, fraction: number }
export function leaks (rounds: Memories[], bound?: { bytes: number, fraction: number }): string[]
