/** `{object_id}` of a path: all digits = id, anything else = nickname. */
export type ObjectRef = { id: number } | { nickname: string }

export function parseObjectRef (text: string): ObjectRef | null {
  const trimmed = text.trim()
  if (trimmed === '') return null
  if (/^\d+$/.test(trimmed)) {
    const id = Number(trimmed)
    return Number.isSafeInteger(id) && id > 0 ? { id } : null
  }
  return { nickname: trimmed }
}
