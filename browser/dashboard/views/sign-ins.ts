import { api, ApiError, type SignIn } from '../api.ts'
import { formatTime, h, stackedTable, timeTag } from '../dom.ts'

/** The signed-in person's browsers: where and when each signed in, this one marked; ending one signs it out. */
export async function renderSignIns(main: HTMLElement): Promise<void> {
  const { signIns } = await api<{ signIns: SignIn[] }>('GET', '/me/sign-ins')
  const message = h('p', { class: 'error', role: 'alert', id: 'sign-ins-message' })
  main.append(h('h1', {}, 'Your sign-ins'),
    h('p', { class: 'hint' }, 'Each browser signed in as you, for a week from its sign-in. End one you do not know, then change your password.'),
    stackedTable('sign-ins', ['Browser', 'IP address', 'Signed in', 'Ends', ''], signIns.map((s) => {
      const end = h('button', { type: 'button', class: 'danger end-sign-in' }, s.current ? 'Sign out here' : 'End')
      end.addEventListener('click', () => {
        message.textContent = ''
        api('DELETE', `/me/sign-ins/${encodeURIComponent(s.id)}`).then(() => {
          if (s.current) location.hash = '#/login'
          else row.remove()
        }, (error: unknown) => { message.textContent = error instanceof ApiError ? error.message : String(error) })
      })
      const row = h('tr', { class: s.current ? 'current' : null, 'data-id': s.id },
        h('td', { class: 'agent' }, s.userAgent ?? '—', s.current ? h('span', { class: 'chip current-chip' }, 'this browser') : null),
        h('td', {}, s.ip ?? '—'), h('td', {}, timeTag(s.createdAt)), h('td', {}, h('time', { datetime: s.expiresAt }, formatTime(s.expiresAt))), h('td', {}, end))
      return row
    })), message)
}
