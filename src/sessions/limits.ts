/** This module's limits; README and docs state them (test/unit/limits.test.ts). */

export const MAX_SEARCH_WORDS = 5
