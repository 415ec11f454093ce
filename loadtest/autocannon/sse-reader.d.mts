export function createdReader (onCreated: (objectId: string, committedAt: () => number) => void): (chunk: Buffer) => void
