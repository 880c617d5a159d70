/**
 * Every error the service answers with carries one of these stable codes.
 * Scripts branch on `code`; `message` is for people.
 */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_body'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'missing_ingest_key'
  | 'invalid_ingest_key'
  | 'not_found'
  | 'not_signed_in'
  | 'invalid_password'
  | 'too_many_requests'
  | 'forbidden'
  | 'route_not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'service_unavailable'
  | 'storage_full'
  | 'internal_error'

/** A failure with an HTTP status, a stable code and a message a user can act on. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    /** The query parameter or body field at fault, when there is one. */
    readonly parameter?: string,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const invalidParameter = (parameter: string, message: string): AppError =>
  new AppError(400, 'invalid_parameter', message, parameter)

export const invalidBody = (message: string, field?: string): AppError =>
  new AppError(400, 'invalid_body', message, field)

export const notFound = (message: string): AppError => new AppError(404, 'not_found', message)
