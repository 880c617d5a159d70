import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyServerOptions } from 'fastify'

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>
type RouteSchema = { $id?: string; properties?: Record<string, { type?: unknown }> }

/** How a query or path integer must be written: plain decimal digits. */
const PLAIN_DIGITS = /^[0-9]+$/

function newAjv(coerceTypes: false | 'array', externalSchemas: Record<string, AnySchema | AnySchema[]>): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: true, allErrors: false, strict: false, addUsedSchema: false })
  addFormats.default(ajv)
  for (const schema of Object.values(externalSchemas)) ajv.addSchema(schema)
  return ajv
}

/** Ajv compiles each $id once; a route that uses a registered schema whole gets the compiled one. */
function compile(ajv: Ajv, schema: RouteSchema): ValidateFunction {
  const stored = schema.$id === undefined ? undefined : ajv.getSchema(schema.$id)
  return stored ?? ajv.compile(schema)
}

/**
 * The app-wide validator (Fastify's `schemaController.compilersFactory.buildValidator`), with the
 * schemas added by `app.addSchema` so routes can `$ref` them.
 *
 * - Bodies are validated as sent: a JSON body already has types, and coercing it would turn null
 *   into "" or 0 and accept "500" as a status code.
 * - Query strings and path parameters arrive as text, so they are coerced ("50" → 50) — but an
 *   integer must first be written in plain digits. Ajv alone would take "0x10", "1e1", "+5", " 5"
 *   and "5.0", and turn "1e400" into Infinity; those answer 400 like any other invalid value.
 */
export const buildValidator = ((externalSchemas: Record<string, AnySchema | AnySchema[]>) => {
  const strict = newAjv(false, externalSchemas)
  const coercing = newAjv('array', externalSchemas)
  return ({ schema, httpPart }: { schema: RouteSchema; httpPart?: string }) => {
    if (httpPart === 'body') return compile(strict, schema)
    const validate = compile(coercing, schema)
    const integers = Object.entries(schema.properties ?? {}).filter(([, p]) => p.type === 'integer').map(([name]) => name)
    return integers.length === 0 ? validate : digitsFirst(validate, integers)
  }
}) as unknown as NonNullable<Compilers['buildValidator']>

/** Wraps a query/params validator: the named integer properties must be plain digits before ajv coerces them. */
function digitsFirst(validate: ValidateFunction, names: readonly string[]) {
  const check = Object.assign((data: unknown): boolean => {
    const values = data as Record<string, unknown> | null
    for (const name of names) {
      const raw = values?.[name]
      const texts: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
      if (texts.some((text) => typeof text === 'string' && !PLAIN_DIGITS.test(text))) {
        // Shaped like ajv's own type error, so the error handler words it like any other.
        check.errors = [{
          instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' },
          message: 'must be an integer in plain digits',
        }]
        return false
      }
    }
    const valid = validate(data)
    check.errors = validate.errors
    return valid
  }, { errors: null as ErrorObject[] | null | undefined })
  return check
}
