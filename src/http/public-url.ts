import type { FastifyRequest } from 'fastify'

/** The server's public address: PUBLIC_URL, else the scheme and host this request came to. */
export const publicBase = (request: FastifyRequest): string => request.server.config.publicUrl ?? `${request.protocol}://${request.host}`
