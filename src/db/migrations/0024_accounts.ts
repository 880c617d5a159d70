import type { Kysely, Migration } from 'kysely'
import type { Target } from './target.ts'

/**
 * People instead of one password: accounts (`users`, the first owner named `admin` created at the next start from the
 * stored dashboard password), their role on all projects or per project (`user_projects`), one-time invitation and
 * password links (`invitations`), single sign-ons under way (`sso_states`, with the account's `oidc_subject` once linked), sign-ins that name their account (`sign_ins`, replacing `admin_sessions`, whose
 * rows were made with the shared password), and the audit trail (`audit_log`), kept apart from any project's data.
 * Working together: an issue's assignee (`issues.assignee_id`), its comments (`issue_comments`), and public links to
 * one visit's replay (`replay_links`), which a project allows only once an admin turns `projects.public_replays` on.
 */
export const accounts = ({ key, engine }: Target): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('users')
      .addColumn('id', key, (c) => c.primaryKey())
      .addColumn('email', key, (c) => c.notNull().unique())
      .addColumn('name', 'text')
      .addColumn('password_hash', 'text')
      .addColumn('role', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'bigint')
      .addColumn('oidc_subject', 'text', (c) => c.unique())
      .execute()
    await db.schema
      .createTable('user_projects')
      .addColumn('user_id', key, (c) => c.notNull())
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_projects_pk', ['user_id', 'project_id'])
      .execute()
    await db.schema.createIndex('user_projects_project_idx').on('user_projects').column('project_id').execute()
    await db.schema
      .createTable('invitations')
      .addColumn('token_hash', key, (c) => c.primaryKey())
      .addColumn('user_id', key, (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('invitations_user_idx').on('invitations').column('user_id').execute()
    await db.schema.dropTable('admin_sessions').execute()
    await db.schema
      .createTable('sso_states')
      .addColumn('state_hash', key, (c) => c.primaryKey())
      .addColumn('pending', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('sign_ins')
      .addColumn('id', key, (c) => c.primaryKey())
      .addColumn('token_hash', key, (c) => c.notNull().unique())
      .addColumn('user_id', key, (c) => c.notNull())
      .addColumn('password_tag', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('user_agent', 'text')
      .addColumn('ip', 'text')
      .execute()
    await db.schema.createIndex('sign_ins_user_idx').on('sign_ins').column('user_id').execute()
    await db.schema.createIndex('sign_ins_expires_idx').on('sign_ins').column('expires_at').execute()
    await db.schema
      .createTable('audit_log')
      .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('user_id', key)
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('project_id', key)
      .addColumn('target', 'text')
      .addColumn('detail', 'text')
      .addColumn('ip', 'text')
      .execute()
    await db.schema.createIndex('audit_log_at_idx').on('audit_log').column('at').execute()
    await db.schema.createIndex('audit_log_project_idx').on('audit_log').columns(['project_id', 'at']).execute()
    await db.schema.createIndex('audit_log_user_idx').on('audit_log').columns(['user_id', 'at']).execute()
    await db.schema.alterTable('issues').addColumn('assignee_id', key).execute()
    // Led by the assignee: a person's issues are found across projects, and no project-wide query of issues is drawn to it.
    await db.schema.createIndex('issues_assignee_idx').on('issues').columns(['assignee_id', 'project_id']).execute()
    await db.schema
      .createTable('issue_comments')
      .addColumn('id', key, (c) => c.primaryKey())
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('issue_id', key, (c) => c.notNull())
      .addColumn('user_id', key)
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('issue_comments_issue_idx').on('issue_comments').columns(['project_id', 'issue_id', 'created_at']).execute()
    await db.schema
      .createTable('replay_links')
      .addColumn('token_hash', key, (c) => c.primaryKey())
      .addColumn('id', key, (c) => c.notNull().unique())
      .addColumn('project_id', key, (c) => c.notNull())
      .addColumn('session_id', key, (c) => c.notNull())
      .addColumn('created_by', key)
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute()
    await db.schema.createIndex('replay_links_project_idx').on('replay_links').columns(['project_id', 'session_id']).execute()
    await db.schema.alterTable('projects').addColumn('public_replays', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
})
