/**
 * The wire contract: what clients send (a batch of events, visitor facts and recording chunks) and what the read
 * API answers (a session, its events and frames), as TypeBox schemas that validate, serialize, document and type
 * them. The store maps its rows to these shapes; this module imports nothing of the store or of any feature, so
 * the browser SDK's type check and the OpenAPI document reach no server code through it.
 */
export * from './batch.ts'
export * from './event.ts'
export * from './event-types.ts'
export * from './frame.ts'
export * from './recording.ts'
export * from './session.ts'
export * from './visitor.ts'
