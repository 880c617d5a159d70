import Type, { type Static } from 'typebox'
import { MAX_CHUNK_ID_LENGTH } from '../contract/limits.ts'
import { Nullable } from '../util/schema.ts'

/** How long a link works unless told, and at most, in days. */
export const DEFAULT_LINK_DAYS = 7
export const MAX_LINK_DAYS = 30

/** A link's token: 256 random bits in base64url, 43 characters; anything else is refused before a lookup. */
export const TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$'
const Token = Type.String({ minLength: 43, maxLength: 43, pattern: TOKEN_PATTERN })

export const NewLinkBody = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINK_DAYS, description: `How long it works, in days (default ${DEFAULT_LINK_DAYS}).` })),
}, { additionalProperties: false })

export const NewLink = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'The public page of the replay: anyone with it can watch that visit until it expires or is revoked.' }),
  expiresAt: Type.String({ format: 'date-time' }),
}, { additionalProperties: false })

export const LinkView = Type.Object({
  id: Type.String(),
  sessionId: Type.String(),
  createdBy: Nullable(Type.Object({ id: Type.String(), email: Type.String() }, { additionalProperties: false })),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
  active: Type.Boolean({ description: 'Whether it works now: not revoked, not expired, and the project allows public replays.' }),
}, { additionalProperties: false })
export type LinkView = Static<typeof LinkView>

export const LinkList = Type.Object({ links: Type.Array(LinkView) }, { additionalProperties: false })

export const LinkParams = Type.Object({ projectId: Type.String({ maxLength: 100 }), linkId: Type.String({ maxLength: 100 }) })
export const TokenParams = Type.Object({ token: Token })
export const TokenChunkParams = Type.Object({ token: Token, chunkId: Type.String({ maxLength: MAX_CHUNK_ID_LENGTH }) })
