import { ROLES, type Role } from '../../../common/roles.ts'
import type { Person, ProjectSummary } from '../api.ts'
import { h } from '../dom.ts'

/** What each role may do, as the role picker says it. */
const ROLE_WORDS: Record<Role, string> = {
  viewer: 'Viewer: sees sessions, replays, issues and releases',
  member: 'Member: + resolves, ignores and reopens issues',
  admin: 'Admin: + project settings, keys, webhooks, erase',
  owner: 'Owner: everything, + people and new projects',
}

export interface RoleChoice { role: Role; projects?: string[] }

/** A person's roles in words: "owner", or "viewer on Shop, admin on Blog". */
export function rolesText(person: Pick<Person, 'role' | 'projects'>, projects: readonly ProjectSummary[]): string {
  if (person.role !== null) return `${person.role} on every project`
  if (person.projects.length === 0) return 'no role'
  const name = (id: string) => projects.find((p) => p.id === id)?.name ?? id
  return person.projects.map((p) => `${p.role} on ${name(p.projectId)}`).join(', ')
}

let pickers = 0

/**
 * A role and where it applies: every project, or the projects ticked. An owner is owner of every project, so choosing
 * owner leaves no projects to tick.
 */
export function roleFields(projects: readonly ProjectSummary[], initial: Pick<Person, 'role' | 'projects'> | null): { element: HTMLElement; value: () => RoleChoice | string } {
  const n = ++pickers
  const start = initial?.role ?? initial?.projects[0]?.role ?? 'viewer'
  const role = h('select', { id: `role-${n}`, class: 'role-select' }, ...ROLES.map((r) => h('option', { value: r, selected: r === start }, ROLE_WORDS[r])))
  const chosenAtStart = initial !== null && initial.role === null
  const every = h('input', { type: 'radio', name: `scope-${n}`, value: 'all', checked: !chosenAtStart, class: 'scope-all' })
  const some = h('input', { type: 'radio', name: `scope-${n}`, value: 'some', checked: chosenAtStart, class: 'scope-some' })
  const ticks = projects.map((p) => ({
    id: p.id,
    box: h('input', { type: 'checkbox', value: p.id, checked: initial?.projects.some((x) => x.projectId === p.id) === true }),
  }))
  const list = h('div', { class: 'project-ticks' }, ...ticks.map((t, i) => h('label', { class: 'inline' }, t.box, ' ', projects[i]?.name ?? t.id)))
  const sync = () => {
    some.disabled = role.value === 'owner'
    if (some.disabled) every.checked = true
    list.hidden = !some.checked
  }
  for (const el of [role, every, some]) el.addEventListener('change', sync)
  sync()
  return {
    element: h('div', { class: 'role-fields' },
      h('label', {}, 'Role', role),
      h('div', { role: 'radiogroup', 'aria-label': 'On which projects' },
        h('label', { class: 'inline' }, every, ' On every project, and new ones'), ' ',
        h('label', { class: 'inline' }, some, ' On the projects chosen')),
      list),
    value: () => {
      if (!some.checked) return { role: role.value as Role }
      const chosen = ticks.filter((t) => t.box.checked).map((t) => t.id)
      return chosen.length === 0 ? 'Choose at least one project, or "On every project".' : { role: role.value as Role, projects: chosen }
    },
  }
}
