import { api, ApiError, type Person, type ProjectSummary } from '../api.ts'
import { clear, copyButton, formatTime, h, stackedTable, timeTag } from '../dom.ts'
import { roleFields, rolesText } from './role-fields.ts'

interface Link { inviteUrl: string; expiresAt: string; emailed?: boolean; emailError?: string | null }

const errorText = (error: unknown): string => (error instanceof ApiError ? error.message : String(error))

/** A one-time link to hand over: the URL with its copy button and how long it works. */
function linkBox(id: string, what: string, link: Link): HTMLElement {
  return h('div', { class: 'card link-box', id },
    h('p', {}, what, ' Give them this link; it works once, until ', h('time', { datetime: link.expiresAt }, formatTime(link.expiresAt)), '.'),
    h('div', { class: 'key' }, h('code', { class: 'invite-url' }, link.inviteUrl), copyButton(() => link.inviteUrl, 'Copy link')),
    link.emailed === true ? h('p', { class: 'hint', id: `${id}-mailed` }, 'It was also emailed to them.') : null,
    typeof link.emailError === 'string' ? h('p', { class: 'error', id: `${id}-mail-error` }, `The email did not go: ${link.emailError}`) : null)
}

/** People (owners only): who has an account and which role, inviting someone, and each person's role, link, sign-ins and removal. */
export async function renderPeople(main: HTMLElement): Promise<void> {
  const [{ people }, { projects }] = await Promise.all([
    api<{ people: Person[] }>('GET', '/people'),
    api<{ projects: ProjectSummary[] }>('GET', '/projects'),
  ])
  const shown = h('div', { id: 'people-box' })
  const notice = h('div', { id: 'people-notice' })
  const list = (all: Person[]) => {
    clear(shown)
    shown.append(stackedTable('people', ['Email', 'Role', 'Password', 'Last sign-in', ''], all.map((p) => personRow(p, projects, {
      reload: () => { void api<{ people: Person[] }>('GET', '/people').then((r) => { list(r.people) }) },
      notice: (el) => { notice.replaceChildren(el) },
    }))))
  }
  list(people)
  main.append(h('h1', {}, 'People'), notice, shown, inviteForm(projects, (link, person) => {
    notice.replaceChildren(linkBox('invitation', `${person.email} is invited.`, link))
    void api<{ people: Person[] }>('GET', '/people').then((r) => { list(r.people) })
  }))
}

/**
 * Whether a password is stored: set, or an invitation not followed yet; a person who signed in before with none stored
 * has a new-password link to follow, or is the first owner signing in with ADMIN_PASSWORD.
 */
const passwordText = (p: Person): Node | string => (p.hasPassword ? 'set' : p.lastSignInAt === null ? h('span', { class: 'chip' }, 'invited')
  : h('span', { class: 'chip', title: 'A new-password link is out, or this is the first owner, whose password is ADMIN_PASSWORD' }, 'none stored'))

function personRow(person: Person, projects: ProjectSummary[], page: { reload: () => void; notice: (el: HTMLElement) => void }): HTMLTableRowElement {
  const path = `/people/${encodeURIComponent(person.id)}`
  const message = h('p', { class: 'error', role: 'alert' })
  const editor = h('div', { class: 'role-editor', hidden: true })
  const act = (label: string, question: string | null, run: () => Promise<unknown>, cls = '') => {
    const button = h('button', { type: 'button', class: cls }, label)
    button.addEventListener('click', () => {
      if (question !== null && !confirm(question)) return
      message.className = 'error'
      message.textContent = ''
      run().catch((error: unknown) => { message.textContent = errorText(error) })
    })
    return button
  }
  const edit = act('Change role', null, () => {
    editor.hidden = !editor.hidden
    if (!editor.hidden && editor.childElementCount === 0) {
      const fields = roleFields(projects, person)
      const save = act('Save role', null, async () => {
        const choice = fields.value()
        if (typeof choice === 'string') throw new Error(choice)
        await api('PATCH', path, choice)
        page.reload()
      }, 'primary save-role')
      editor.append(fields.element, save)
    }
    return Promise.resolve()
  }, 'change-role')
  return h('tr', { 'data-email': person.email },
    h('td', { class: 'email' }, person.email),
    h('td', { class: 'roles' }, rolesText(person, projects), editor),
    h('td', {}, passwordText(person)),
    h('td', {}, person.lastSignInAt === null ? 'never' : timeTag(person.lastSignInAt)),
    h('td', {}, h('div', { class: 'person-actions' }, edit,
      act('Password link', `Make a new password link for ${person.email}? Their password stops working and their sign-ins end now.`, async () => {
        const link = await api<Link>('POST', `${path}/password-link`)
        page.notice(linkBox('password-link', `${person.email} can set a new password.`, link))
        page.reload()
      }, 'password-link'),
      act('End sign-ins', `Sign ${person.email} out of every browser?`, async () => {
        await api('DELETE', `${path}/sign-ins`)
        message.className = 'ok'
        message.textContent = 'Signed out everywhere.'
      }, 'end-sign-ins'),
      act('Remove', `Remove ${person.email}? They are signed out at once and lose every role.`, async () => {
        await api('DELETE', path)
        page.reload()
      }, 'danger remove-person'),
      message)))
}

/** Invite someone by email, with a role; the server answers with the link to give them. */
function inviteForm(projects: ProjectSummary[], invited: (link: Link, person: Person) => void): HTMLElement {
  const email = h('input', { type: 'email', id: 'invite-email', required: true, placeholder: 'ann@example.com', autocomplete: 'off' })
  const fields = roleFields(projects, null)
  const message = h('p', { class: 'error', role: 'alert', id: 'invite-message' })
  const form = h('form', { class: 'card', id: 'invite' },
    h('h2', {}, 'Invite someone'),
    h('label', {}, 'Email', email), fields.element,
    h('button', { type: 'submit', class: 'primary' }, 'Invite'), message)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    message.textContent = ''
    const choice = fields.value()
    if (typeof choice === 'string') {
      message.textContent = choice
      return
    }
    api<Link & { person: Person }>('POST', '/people', { email: email.value.trim(), ...choice }).then((answer) => {
      email.value = ''
      invited(answer, answer.person)
    }, (error: unknown) => { message.textContent = errorText(error) })
  })
  return form
}
