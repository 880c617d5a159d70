import { api, ApiError } from '../api.ts'
import { h } from '../dom.ts'

/** Where to go once signed in: the page the person was sent away from, else the projects list. */
export function afterSignIn(): void {
  const next = new URLSearchParams(location.hash.split('?')[1] ?? '').get('next')
  location.hash = next && next.startsWith('#/') && !next.startsWith('#/login') && !next.startsWith('#/link') ? next : '#/'
}

export function renderLogin(root: HTMLElement): void {
  const login = h('input', {
    type: 'text', id: 'login-name', name: 'username', autocomplete: 'username', required: true, autofocus: true,
    placeholder: 'you@example.com or admin', autocapitalize: 'none', spellcheck: 'false',
  })
  const password = h('input', { type: 'password', id: 'password', name: 'password', autocomplete: 'current-password', required: true })
  const message = h('p', { class: 'error', role: 'alert', id: 'login-error' })
  const form = h('form', { class: 'login card', id: 'login' },
    h('h1', {}, 'Sessionwatch'),
    h('label', { for: 'login-name' }, 'Email'), login,
    h('label', { for: 'password' }, 'Password'), password,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    message,
    h('p', { class: 'hint' }, 'The first owner signs in as "admin" with ADMIN_PASSWORD, or the password printed when the service first started; '
      + 'lost it? Run "npx sessionwatch admin reset-password". Everyone else signs in with the email they were invited with.'))
  // The ways in the server offers: a single sign-on button, and the password form unless PASSWORD_LOGIN is off (then
  // it stays behind a link, for owners). A refused single sign-on comes back here with why.
  const why = new URLSearchParams(location.hash.split('?')[1] ?? '').get('error')
  if (why !== null) message.textContent = why
  api<{ sso: boolean; passwordLogin: boolean }>('GET', '/sign-in-options').then((options) => {
    if (options.sso) {
      form.insertBefore(h('a', { class: 'button primary', id: 'sso', href: '/app/api/sso/start' }, 'Sign in with single sign-on'), form.children[1] ?? null)
    }
    if (!options.passwordLogin) {
      for (const field of form.querySelectorAll<HTMLElement>('label, input, button[type=submit]')) field.hidden = true
      const show = h('button', { type: 'button', class: 'link', id: 'owner-password' }, 'Owner: sign in with a password')
      show.addEventListener('click', () => {
        for (const field of form.querySelectorAll<HTMLElement>('label, input, button[type=submit]')) field.hidden = false
        show.remove()
      })
      form.insertBefore(show, message)
    }
  }, () => { /* the password form is there either way */ })
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api('POST', '/session', { login: login.value.trim(), password: password.value }).then(afterSignIn, (error: unknown) => {
      message.textContent = error instanceof ApiError ? error.message : 'The service cannot be reached.'
      password.select()
    })
  })
  root.append(h('main', { class: 'center' }, form))
}
