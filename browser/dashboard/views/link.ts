import { MIN_PASSWORD_LENGTH } from '../../../common/limits.ts'
import { api, ApiError } from '../api.ts'
import { h } from '../dom.ts'

/**
 * A one-time link (an invitation or a new-password link): greets the person by email and asks for a password twice;
 * the server signs this browser in once it is set, so the projects list follows.
 */
export async function renderLink(root: HTMLElement, token: string): Promise<void> {
  const path = `/links/${encodeURIComponent(token)}`
  const card = h('div', { class: 'login card', id: 'link' }, h('h1', {}, 'Sessionwatch'))
  root.append(h('main', { class: 'center' }, card))
  let email: string
  try {
    email = (await api<{ email: string }>('GET', path)).email
  } catch (error) {
    card.append(h('p', { class: 'error', role: 'alert', id: 'link-error' }, error instanceof ApiError && error.status === 404
      ? 'This link was used already, has expired (links work for 7 days), or was replaced by a newer one. Ask an owner of this '
        + 'Sessionwatch for a new link (People page, or "npx sessionwatch user reset-password --email …").'
      : error instanceof Error ? error.message : String(error)),
    h('p', {}, h('a', { href: '#/login' }, 'Sign in instead')))
    return
  }
  const field = (id: string, label: string) => {
    const input = h('input', { type: 'password', id, autocomplete: 'new-password', required: true, minlength: MIN_PASSWORD_LENGTH })
    return { input, label: h('label', { for: id }, label) }
  }
  const first = field('new-password', `New password (at least ${MIN_PASSWORD_LENGTH} characters)`)
  const again = field('new-password-again', 'The same password again')
  const message = h('p', { class: 'error', role: 'alert', id: 'link-message' })
  // The account's email as a username field: password managers save the new password under it.
  const form = h('form', { id: 'set-password' },
    h('p', { id: 'link-greeting' }, 'Welcome, ', h('b', {}, email), '. Choose your password.'),
    h('input', { type: 'hidden', autocomplete: 'username', value: email }),
    first.label, first.input, again.label, again.input,
    h('button', { type: 'submit', class: 'primary' }, 'Set password and sign in'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (first.input.value !== again.input.value) {
      message.textContent = 'The two passwords are not the same.'
      again.input.select()
      return
    }
    message.textContent = ''
    api('POST', path, { password: first.input.value }).then(() => { location.hash = '#/' },
      (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : 'The service cannot be reached.' })
  })
  card.append(form)
  first.input.focus()
}
