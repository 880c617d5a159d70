import { TEXT_LIMITS } from '../contract/limits.ts'
import { truncate } from '../../common/text.ts'
import type { TextField } from '../contract/index.ts'

/*
 * PostgreSQL text cannot hold U+0000, and SQLite can; replacing it everywhere keeps the engines'
 * answers identical and keeps a stray NUL in a visitor's data from failing the whole batch.
 */
export const cleanText = (value: string): string => (value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value)

export const limitText = (field: TextField, value: string | null | undefined, alreadyCut = 0): string | null =>
  value == null ? null : truncate(cleanText(value), TEXT_LIMITS[field], alreadyCut)
