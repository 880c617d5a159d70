import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { dayOf, INSTANT_PATTERN, parseDate, parseInstant, toIso } from '../../../src/util/time.ts'

describe('parseDate', () => {
  it('reads YYYY-MM-DD as that day\'s UTC midnight', () => {
    assert.equal(parseDate('2026-11-20'), Date.UTC(2026, 10, 20))
    assert.equal(parseDate('2024-02-29'), Date.UTC(2024, 1, 29), 'leap day')
  })
  it('reads every year 0000–9999, before 1970 as a negative instant, years 0–99 as written', () => {
    assert.equal(parseDate('1969-12-31'), -86_400_000)
    assert.equal(parseDate('0000-01-01'), -62_167_219_200_000)
    assert.equal(parseDate('0099-12-31'), Date.parse('0099-12-31T00:00:00Z'))
    assert.equal(parseDate('0004-02-29'), Date.parse('0004-02-29T00:00:00Z'), 'leap day of year 4')
    assert.equal(parseDate('1900-02-29'), null, '1900 is no leap year')
    assert.equal(parseInstant('1969-12-31T23:59:59.999Z'), -1)
    assert.equal(parseInstant('0050-06-01T02:00:00+02:00'), Date.parse('0050-06-01T00:00:00Z'))
  })
  it('refuses impossible and malformed dates', () => {
    for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-2-3', '26-02-03', '2026-02-03T00:00:00Z', '', 'today']) {
      assert.equal(parseDate(bad), null, bad)
    }
  })
})

describe('parseInstant', () => {
  it('reads date-times with Z, with offsets, and bare dates', () => {
    assert.equal(parseInstant('2026-11-20T10:15:30Z'), Date.UTC(2026, 10, 20, 10, 15, 30))
    assert.equal(parseInstant('2026-11-20T10:15:30.123Z'), Date.UTC(2026, 10, 20, 10, 15, 30, 123))
    assert.equal(parseInstant('2026-11-20T10:15:30.1234567Z'), Date.UTC(2026, 10, 20, 10, 15, 30, 123))
    assert.equal(parseInstant('2026-11-20T13:15+03:00'), Date.UTC(2026, 10, 20, 10, 15))
    assert.equal(parseInstant('2026-11-20T05:15:00-0500'), Date.UTC(2026, 10, 20, 10, 15))
    assert.equal(parseInstant('2026-11-20'), Date.UTC(2026, 10, 20))
  })
  it('refuses date-times without a zone, impossible times and garbage', () => {
    for (const bad of ['2026-11-20T10:15:30', '2026-11-20T25:00:00Z', '2026-11-20T10:60:00Z', '2026-02-30T00:00:00Z',
      '2026-11-20T10:00:00+24:00', 'now', '1700000000000', '2026-11-20T10:00:00ZZ']) {
      assert.equal(parseInstant(bad), null, bad)
    }
  })
})

describe('toIso and dayOf', () => {
  it('prints UTC with milliseconds', () => {
    assert.equal(toIso(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), '2026-01-02T03:04:05.006Z')
  })
  it('equals Date#toISOString everywhere from 1970 to 9999', () => {
    const samples = [0, 1, 999, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), 253_402_300_799_999]
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor(Math.random() * 253_402_300_799_999))
    for (const ms of samples) assert.equal(toIso(ms), new Date(ms).toISOString(), String(ms))
  })
  it('equals Date#toISOString before 1970 too, back to year 0000', () => {
    const samples = [-1, -86_400_000, -86_400_001, -62_167_219_200_000]
    for (let i = 0; i < 5_000; i++) samples.push(-Math.floor(Math.random() * 62_167_219_200_000))
    for (const ms of samples) assert.equal(toIso(ms), new Date(ms).toISOString(), String(ms))
  })
  it('numbers UTC days', () => {
    assert.equal(dayOf(-1), -1)
    assert.equal(dayOf(Date.UTC(1970, 0, 2)), 1)
    assert.equal(dayOf(Date.UTC(2026, 0, 2) - 1), dayOf(Date.UTC(2026, 0, 1)))
  })
})

describe('INSTANT_PATTERN', () => {
  const pattern = new RegExp(INSTANT_PATTERN, 'u')
  const agree = (value: string) => {
    assert.equal(pattern.test(value), parseInstant(value) !== null, `${value}: the pattern and the parser disagree`)
  }

  it('matches exactly the dates parseInstant reads: every month and day, leap years and centuries', () => {
    for (const year of ['0000', '0004', '1900', '1996', '2000', '2023', '2024', '2100', '2400', '9999']) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) agree(`${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`)
      }
    }
  })

  it('matches exactly the times and offsets parseInstant reads', () => {
    const two = (n: number) => String(n).padStart(2, '0')
    for (const hour of [0, 9, 19, 23, 24, 29]) {
      for (const minute of [0, 59, 60]) {
        for (const second of ['', ':00', ':59', ':60', ':59.1', ':59.123456789', ':59.1234567890', '.5']) {
          for (const zone of ['Z', 'z', '+00:00', '-23:59', '+24:00', '+05:60', '+0530', '', '+5:30']) {
            for (const separator of ['T', 't', ' ', '_']) agree(`2026-11-20${separator}${two(hour)}:${two(minute)}${second}${zone}`)
          }
        }
      }
    }
  })
})
