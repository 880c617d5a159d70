/**
 * API keys just created or rotated in this tab. The service keeps only their hashes, so this is
 * the one moment a key can be shown; it lives in memory and is gone on reload.
 */
export const freshKeys = new Map<string, string>()
/** Upload keys just created or replaced in this tab, likewise. */
export const freshUploadKeys = new Map<string, string>()
