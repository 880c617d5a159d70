/**
 * Rough heap costs in V8 on 64 bits, for caches bounded by the memory their entries hold (common/limits.ts).
 * Estimates err high: an entry costing less than estimated only leaves a cache smaller than its budget.
 */

/** A string: its header, and two bytes a character (V8 stores Latin-1 text in one, any other in two). */
export const stringBytes = (text: string | null): number => (text === null ? 0 : 16 + 2 * text.length)

/** A small plain object or array: header and a few fields, without what its fields point to. */
export const OBJECT_BYTES = 64

/** One number in a Set: its slot in the hash table (a smi and a chain link), with the table's spare capacity. */
export const SET_ENTRY_BYTES = 40

/** lru-cache's own cost per entry: its key, value and link slots in five arrays, and its map entry. */
export const LRU_ENTRY_BYTES = 64
