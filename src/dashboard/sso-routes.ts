import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import Type from 'typebox'
import { finishSso, startSso } from '../accounts/sso.ts'
import { AppError, notFound } from '../errors.ts'
import { publicBase } from '../http/public-url.ts'
import { openOidc } from '../sso/oidc.ts'
import { SESSION_MS, type DashboardAuth } from './auth.ts'
import type { Cookies } from './account-routes.ts'

const hide = { hide: true }
const SignInOptions = Type.Object({
  sso: Type.Boolean({ description: 'Whether single sign-on is set up (OIDC_ISSUER).' }),
  passwordLogin: Type.Boolean({ description: 'Whether everyone may sign in with a password (PASSWORD_LOGIN); owners always may.' }),
})

/**
 * Single sign-on with the OpenID Connect provider OIDC_ISSUER names: the sign-in page asks which ways are open, the
 * browser is sent to the provider, and its callback signs the browser in (or comes back to the sign-in page saying why not).
 */
export const ssoRoutes = (auth: DashboardAuth, cookies: Cookies): FastifyPluginCallbackTypebox => (app, _opts, done) => {
  const settings = app.config.oidc
  const oidc = settings === null ? null : openOidc(settings)
  const callbackUri = (request: FastifyRequest) => `${publicBase(request)}/app/api/sso/callback`

  app.get('/sign-in-options', { schema: { ...hide, response: { 200: SignInOptions } } }, (_request, reply) => {
    void reply.send({ sso: oidc !== null, passwordLogin: app.config.passwordLogin })
  })

  app.get('/sso/start', { schema: hide }, async (request, reply) => {
    if (oidc === null) throw notFound('Single sign-on is not set up: set OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_ALLOWED_DOMAINS.')
    return reply.redirect(await startSso(app.db, oidc, callbackUri(request)), 302)
  })

  // The provider sends the browser back here: signed in, it goes to the dashboard; refused, to the sign-in page with why.
  app.get('/sso/callback', { schema: hide }, async (request, reply) => {
    if (oidc === null || settings === null) throw notFound('Single sign-on is not set up.')
    try {
      const user = await finishSso(app.db, oidc, settings, new URL(request.url, 'http://callback.invalid'), request.ip)
      const token = await auth.issue(user, Date.now(), { ip: request.ip, userAgent: request.headers['user-agent'] ?? null })
      cookies.setCookie(reply, cookies.cookie, '/app', token, SESSION_MS / 1000, cookies.secure(request))
      return await reply.redirect('/app#/', 302)
    } catch (error) {
      if (!(error instanceof AppError) || error.statusCode >= 500) throw error
      return reply.redirect(`/app#/login?error=${encodeURIComponent(error.message.slice(0, 300))}`, 302)
    }
  })
  done()
}
