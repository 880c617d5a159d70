import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyServerOptions } from 'fastify'
import fastJsonStringify from 'fast-json-stringify'

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

type Externals = Record<string, AnySchema | AnySchema[]>

/** Ajv compiles each $id once; a route that uses a registered schema whole gets the compiled one. */
function compile(ajv: Ajv, schema: RouteSchema): ValidateFunction {
  const stored = schema.$id === undefined ? undefined : ajv.getSchema(schema.$id)
  return stored ?? ajv.compile(schema)
}

/**
 * Compiling the schemas was two thirds of building the app (0.6 of 0.95 s), and the tests build it hundreds of times
 * in one process, so what is compiled is kept by the JSON text of the schemas it was compiled from: Fastify clones
 * registered schemas, and routes build equal ones (a `$ref` with its own description) afresh, so objects never
 * repeat. Production builds one app, so it compiles as often as before.
 */
function perSchemaText<S, T>(make: (schema: S) => T): (schema: S) => T {
  const made = new Map<string, T>()
  return (schema) => {
    const key = JSON.stringify(schema)
    let value = made.get(key)
    if (value === undefined) {
      value = make(schema)
      made.set(key, value)
    }
    return value
  }
}

const validators = perSchemaText((externals: Externals) => {
  const strict = newAjv(false, externals)
  const coercing = newAjv('array', externals)
  return {
    body: perSchemaText((schema: RouteSchema) => compile(strict, schema)),
    other: perSchemaText((schema: RouteSchema) => {
      const validate = compile(coercing, schema)
      const integers = Object.entries(schema.properties ?? {}).filter(([, p]) => p.type === 'integer').map(([name]) => name)
      return integers.length === 0 ? validate : digitsFirst(validate, integers)
    }),
  }
})

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
export const buildValidator = ((externalSchemas: Externals) => {
  const { body, other } = validators(externalSchemas)
  return ({ schema, httpPart }: { schema: RouteSchema; httpPart?: string }) => httpPart === 'body' ? body(schema) : other(schema)
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

/**
 * The app-wide serializer (Fastify's `buildSerializer`): Fastify's own, fast-json-stringify with the registered
 * schemas, each response schema compiled once per process (see perSchemaText).
 */
const serializers = perSchemaText((externals: Externals) => perSchemaText((schema: { $id?: string }) => {
  // As Fastify's compiler does: a schema registered by $id is not also given as an external one.
  const external = schema.$id !== undefined && schema.$id in externals
    ? Object.fromEntries(Object.entries(externals).filter(([id]) => id !== schema.$id))
    : externals
  type Schema = Parameters<typeof fastJsonStringify>[0]
  return fastJsonStringify(schema as Schema, { schema: external as Record<string, Schema> })
}))

export const buildSerializer = ((externalSchemas: Externals) => {
  const serialize = serializers(externalSchemas)
  return ({ schema }: { schema: { $id?: string } }) => serialize(schema)
}) as unknown as NonNullable<Compilers['buildSerializer']>
