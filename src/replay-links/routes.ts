import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { atLeast } from '../accounts/roles.ts'
import { roleOn } from '../accounts/service.ts'
import { actorOf, audit, type Actor } from '../audit/service.ts'
import { publicBase } from '../http/public-url.ts'
import { sendGzippedJson } from '../http/send.ts'
import { getProject } from '../projects/service.ts'
import { ProjectParams } from '../projects/schema.ts'
import { getChunk } from '../recording/service.ts'
import { SessionParams } from '../sessions/schema.ts'
import { LinkList, LinkParams, NewLink, NewLinkBody, TokenChunkParams, TokenParams } from './schema.ts'
import { createLink, linkRecording, listLinks, openLink, revokeLink } from './service.ts'

const hide = { hide: true }
const SessionInProject = Type.Object({ ...ProjectParams.properties, ...SessionParams.properties })
/** Who the audit trail names for a view through a public link: nobody signed in. */
const PUBLIC_LINK: Actor = { userId: null, name: 'public link', ip: null }

/** Where a link opens: a page of its own, outside the dashboard, that shows the replay alone. */
export const replayUrl = (base: string, token: string): string => `${base}/r/${token}`

interface SignedInRequest { signedIn: { access: Parameters<typeof roleOn>[0] } | null; actor: Actor | null }
const accessOf = (request: SignedInRequest) => {
  if (request.signedIn === null) throw new Error('a replay link route ran without a sign-in')
  return request.signedIn.access
}
const isAdmin = (request: SignedInRequest, projectId: string) => atLeast(roleOn(accessOf(request), projectId), 'admin')

/** Making, listing and revoking public replay links, in the dashboard (its hook checks the role first). */
export const replayLinkRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.post('/projects/:projectId/sessions/:id/public-link', {
    schema: { ...hide, params: SessionInProject, body: NewLinkBody, response: { 201: NewLink } },
  }, async (request, reply) => {
    const { projectId, id } = request.params
    const actor = actorOf(request)
    const made = await app.db.transaction().execute(async (trx) => {
      const link = await createLink(trx, await getProject(trx, projectId), id, actor.userId, request.body.days)
      await audit(trx, actor, 'public_link_created', { projectId, target: id, detail: { link: link.id, expiresAt: link.expiresAt } })
      return link
    })
    return reply.code(201).send({ id: made.id, url: replayUrl(publicBase(request), made.token), expiresAt: made.expiresAt })
  })

  app.get('/projects/:projectId/public-links', { schema: { ...hide, params: ProjectParams, response: { 200: LinkList } } }, async (request) =>
    listLinks(app.db, await getProject(app.db, request.params.projectId), { userId: accessOf(request).userId, admin: isAdmin(request, request.params.projectId) }))

  app.delete('/projects/:projectId/public-links/:linkId', { schema: { ...hide, params: LinkParams } }, async (request, reply) => {
    const { projectId, linkId } = request.params
    await app.db.transaction().execute(async (trx) => {
      const sessionId = await revokeLink(trx, projectId, linkId, { userId: accessOf(request).userId, admin: isAdmin(request, projectId) })
      await audit(trx, actorOf(request), 'public_link_revoked', { projectId, target: sessionId, detail: { link: linkId } })
    })
    return reply.code(204).send()
  })
  done()
}

/** What a public link serves: the visit's recording and its chunks, nothing else; each opening is a line of the audit trail. */
export const publicReplayRoutes: FastifyPluginCallbackTypebox = (app, _opts, done) => {
  app.get('/public-replays/:token/recording', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    const link = await openLink(app.db, request.params.token)
    const recording = await linkRecording(app.db, link)
    await audit(app.db, { ...PUBLIC_LINK, ip: request.ip }, 'public_replay_viewed', { projectId: link.project.id, target: link.sessionId })
    return reply.header('Cache-Control', 'no-store').send(recording)
  })

  app.get('/public-replays/:token/recording/chunks/:chunkId', { schema: { ...hide, params: TokenChunkParams } }, async (request, reply) => {
    const link = await openLink(app.db, request.params.token)
    const data = await getChunk(app.db, app.recordings.stores, link.project, link.sessionId, request.params.chunkId)
    return sendGzippedJson(request, reply, data)
  })
  done()
}
