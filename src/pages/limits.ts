/**
 * The longest page template kept, in characters: a longer one is cut. The template is part of the counters' primary
 * keys, and PostgreSQL refuses a btree key over 2,704 bytes; 512 characters stay under it whatever the characters.
 */
export const MAX_PAGE_LENGTH = 512
