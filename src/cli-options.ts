/*
 * How the CLI reads its options (src/cli.ts runs the commands): node:util parseArgs, with every mistake in how a
 * command was called thrown as a UsageError, which the CLI prints with its usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { IP_STORAGE_MODES } from '../common/limits.ts'
import { isIpStorage } from './privacy/ip.ts'
import type { NewProject } from './projects/service.ts'
import { parseByteSize } from './util/limits.ts'

/** A mistake in how the command was called: usage is printed with it. */
export class UsageError extends Error {}

/** The command's options, strict: an unknown option or a surplus argument is a UsageError. */
export function args<O extends NonNullable<ParseArgsConfig['options']>>(rest: string[], options: O, positionals = 0) {
  try {
    const parsed = parseArgs({ args: rest, options, allowPositionals: positionals > 0, strict: true })
    if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals] ?? ''}"`)
    return parsed
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError((error as Error).message)
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

/** The options that set a project's fields, shared by `project create` and `project update`. */
export const PROJECT_FIELDS = {
  name: { type: 'string' }, domain: { type: 'string' }, 'retention-days': { type: 'string' }, 'ip-storage': { type: 'string' }, 'mask-fields': { type: 'string' },
  'rate-limit': { type: 'string' }, 'daily-quota': { type: 'string' }, 'recording-budget': { type: 'string' }, 'public-replays': { type: 'string' },
} as const

/** The fields the options set; projects/service.ts validates their values and names what is wrong. */
export function projectFields(values: { [K in keyof typeof PROJECT_FIELDS]?: string }): Partial<NewProject> {
  const days = values['retention-days']
  if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--retention-days must be a whole number of days')
  const storage = values['ip-storage']
  if (storage !== undefined && storage !== 'default' && !isIpStorage(storage)) {
    throw new UsageError(`--ip-storage must be ${IP_STORAGE_MODES.join(', ')} or default (the server's IP_STORAGE), not "${storage}"`)
  }
  const fields = values['mask-fields']
  const rate = values['rate-limit']
  if (rate !== undefined && rate !== 'default' && !/^\d+$/.test(rate)) {
    throw new UsageError(`--rate-limit must be a whole number of requests per second (0: no limit) or default (the server's INGEST_RATE_LIMIT), not "${rate}"`)
  }
  const quota = values['daily-quota']
  if (quota !== undefined && quota !== 'none' && !/^\d+$/.test(quota)) {
    throw new UsageError(`--daily-quota must be a whole number of events per UTC day or none, not "${quota}"`)
  }
  const budget = values['recording-budget']
  const budgetBytes = budget === undefined || budget === 'none' ? null : parseByteSize(budget)
  if (budget !== undefined && budget !== 'none' && (budgetBytes === null || budgetBytes < 1)) {
    throw new UsageError(`--recording-budget must be a size such as 500MB or 2GiB (MB = 10^6 bytes, MiB = 2^20), or none, not "${budget}"`)
  }
  const publicReplays = values['public-replays']
  if (publicReplays !== undefined && publicReplays !== 'on' && publicReplays !== 'off') {
    throw new UsageError(`--public-replays must be on or off, not "${publicReplays}"`)
  }
  return {
    ...(values.name !== undefined && { name: values.name }),
    ...(values.domain !== undefined && { domain: values.domain }),
    ...(days !== undefined && { retentionDays: Number(days) }),
    // `default` (update): follow the server's IP_STORAGE again.
    ...(storage !== undefined && { ipStorage: storage === 'default' ? null : storage }),
    ...(fields !== undefined && { maskFields: fields.split(',').map((f) => f.trim()).filter((f) => f !== '') }),
    ...(rate !== undefined && { ingestRateLimit: rate === 'default' ? null : Number(rate) }),
    ...(quota !== undefined && { dailyEventQuota: quota === 'none' ? null : Number(quota) }),
    ...(budget !== undefined && { recordingBudget: budgetBytes }),
    ...(publicReplays !== undefined && { publicReplays: publicReplays === 'on' }),
  }
}
