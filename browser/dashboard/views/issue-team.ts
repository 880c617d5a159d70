import { atLeast } from '../../../common/roles.ts'
import { api, type IssueComment, type IssueItem, type Me, type ProjectSummary } from '../api.ts'
import { h, timeTag } from '../dom.ts'

/** The text of a failure, in an alert under what failed. */
const failure = (error: unknown) => h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error))

/** Who works on the issue: a picker of the people with a role on the project for a member, the name alone for a viewer. */
export function assigneePicker(project: ProjectSummary, base: string, issue: IssueItem): HTMLElement {
  const box = h('div', { class: 'assignee', id: 'issue-assignee' })
  if (!atLeast(project.role, 'member')) {
    box.append(h('span', {}, 'Assigned to ', h('b', { id: 'issue-assignee-name' }, issue.assignee?.email ?? 'nobody')))
    return box
  }
  const select = h('select', { id: 'assignee-select', 'aria-label': 'Assigned to' }, h('option', { value: '' }, 'Nobody'))
  const current = issue.assignee
  if (current) select.append(h('option', { value: current.id, selected: true }, current.email))
  box.append(h('label', {}, 'Assigned to ', select))
  void api<{ people: { id: string; email: string }[] }>('GET', `/projects/${encodeURIComponent(project.id)}/people`).then(({ people }) => {
    for (const p of people) if (p.id !== current?.id) select.append(h('option', { value: p.id }, p.email))
  }, (error: unknown) => { box.append(failure(error)) })
  select.addEventListener('change', () => {
    box.querySelector('.error')?.remove()
    void api('PUT', `${base}/assignee`, { userId: select.value === '' ? null : select.value })
      .then(() => { box.dataset.saved = select.value }, (error: unknown) => { box.append(failure(error)) })
  })
  return box
}

/** The issue's comments, oldest first, as text; a member writes one, and its author alone edits it. */
export async function commentThread(project: ProjectSummary, base: string): Promise<HTMLElement> {
  const section = h('section', { class: 'comments', id: 'issue-comments', 'aria-label': 'Comments' }, h('h2', {}, 'Comments'))
  const list = h('ol', { class: 'comment-list', id: 'comment-list' })
  const [{ comments }, person] = await Promise.all([api<{ comments: IssueComment[] }>('GET', `${base}/comments`), api<Me>('GET', '/me')])
  const item = (c: IssueComment): HTMLElement => {
    const li = h('li', { class: 'comment', 'data-id': c.id })
    const text = h('p', { class: 'comment-body' }, c.body)
    const edited = c.updatedAt === c.createdAt ? null : h('span', { class: 'edited' }, ' (edited)')
    li.append(h('div', { class: 'comment-head' }, h('b', { class: 'comment-author' }, c.author?.email ?? 'removed person'), ' · ', timeTag(c.createdAt), edited), text)
    if (c.author?.id === person.id) {
      li.append(h('button', {
        type: 'button', class: 'link comment-edit',
        onclick: () => { li.replaceWith(editor(c.body, 'Save', (body) => api<IssueComment>('PATCH', `${base}/comments/${encodeURIComponent(c.id)}`, { body }).then(item))) },
      }, 'Edit'))
    }
    return li
  }
  list.append(...comments.map(item))
  section.append(comments.length === 0 ? h('p', { class: 'empty', id: 'no-comments' }, 'No comments yet.') : '', list)
  if (atLeast(project.role, 'member')) {
    const add = editor('', 'Comment', (body) => api<IssueComment>('POST', `${base}/comments`, { body }).then((c) => {
      section.querySelector('#no-comments')?.remove()
      list.append(item(c))
      return add
    }), true)
    section.append(add)
  }
  return section
}

/** A text box with its button; what `save` resolves to replaces the editor (or, `stay`, it is emptied for the next one). */
function editor(text: string, label: string, save: (body: string) => Promise<HTMLElement>, stay = false): HTMLElement {
  const area = h('textarea', { class: 'comment-text', rows: 3, maxlength: 10_000, required: true, 'aria-label': label === 'Save' ? 'Edit the comment' : 'New comment' }, text)
  const form = h('form', { class: label === 'Save' ? 'comment-editor editing' : 'comment-editor', id: label === 'Save' ? null : 'comment-form' },
    area, h('button', { type: 'submit', class: 'primary' }, label))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    form.querySelector('.error')?.remove()
    save(area.value).then((next) => {
      if (stay) area.value = ''
      else form.replaceWith(next)
    }, (error: unknown) => { form.append(failure(error)) })
  })
  return form
}
