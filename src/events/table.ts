/** Row shape of `events`. */
export interface EventTable {
  project_id: string
  session_id: string
  /** Client-supplied or derived from the batch id, so a retried batch maps onto the same rows. */
  id: string
  /** Receive order inside the session; breaks ties between equal created_at. */
  seq: number
  type: string
  created_at: number
  url: string | null
  method: string | null
  message: string | null
  stack: string | null
  status_code: number | null
  duration_ms: number | null
  req_body: string | null
  res_body: string | null
}
