import type { Socket } from 'node:net'

export function chunkedDecoder (onBytes: (bytes: Buffer) => void, onEnd: () => void): (chunk: Buffer) => void
export function rawGet (
  target: { host: string, port: number, path: string, headers: Record<string, string> },
  on: { onHead: (status: number) => void, onBytes: (bytes: Buffer) => void, onEnd: (why: string) => void },
): Socket
