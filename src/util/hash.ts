/** FNV-1a, 32 bits: a fast, stable hash of text for in-memory keys and spreading (not for anything secret). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}
