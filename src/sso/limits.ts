/** How long a started sign-in may spend at the identity provider before its callback is refused. */
export const PENDING_SIGN_IN_MS = 10 * 60_000
/** Bound on each request to the identity provider (discovery, keys, token, userinfo), in seconds as openid-client takes it. */
export const OIDC_TIMEOUT_SECONDS = 5
