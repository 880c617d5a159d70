/** Row shape of `recording_stores` (registry.ts owns it): a store chunks were written to, by its normalized RECORDINGS_URL. */
export interface RecordingStoreTable {
  id: number
  url: string
}
