import { api, ApiError } from '../api.ts'
import { h } from '../dom.ts'

export function renderLogin(root: HTMLElement): void {
  const password = h('input', { type: 'password', id: 'password', name: 'password', autocomplete: 'current-password', required: true, autofocus: true })
  const message = h('p', { class: 'error', role: 'alert', id: 'login-error' })
  const form = h('form', { class: 'login card', id: 'login' },
    h('h1', {}, 'Sessionwatch'),
    h('label', { for: 'password' }, 'Admin password'),
    password,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    message,
    h('p', { class: 'hint' }, 'The password is ADMIN_PASSWORD, or the one printed when the service first started. '
      + 'Lost it? Run "npx sessionwatch admin reset-password".'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    api('POST', '/session', { password: password.value }).then(() => {
      const next = new URLSearchParams(location.hash.split('?')[1] ?? '').get('next')
      location.hash = next && next.startsWith('#/') && !next.startsWith('#/login') ? next : '#/'
    }, (error: unknown) => {
      message.textContent = error instanceof ApiError ? error.message : 'The service cannot be reached.'
      password.select()
    })
  })
  root.append(h('main', { class: 'center' }, form))
}
