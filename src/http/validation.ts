import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

/*
 * Query strings arrive as text, so the app-wide validator coerces ("50" → 50). A JSON body
 * already has types, and coercing it would turn null into "" or 0 and accept "500" as a status
 * code; routes with a body validate it with this compiler, which never coerces.
 */
const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: true, allErrors: false, strict: false })
addFormats.default(ajv)

const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: false, strict: false })
addFormats.default(coercing)

/** Validator compiler for routes that take a JSON body: bodies as sent, other parts coerced from text. */
export const strictBodyCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? ajv : coercing).compile(schema as object)
