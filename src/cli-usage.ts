import { byteSize } from './util/limits.ts'
import { DEFAULT_HOST, DEFAULT_LOG_LEVEL, DEFAULT_MAX_SESSION_BYTES, DEFAULT_PORT, DEFAULT_SOURCEMAP_CACHE_BYTES, DEFAULT_SQLITE_FILE, DEFAULT_SWEEP_SECONDS, DEFAULT_IP_STORAGE, DEFAULT_RECORDINGS_MIN_FREE, DEFAULT_AUDIT_RETENTION_DAYS } from './settings.ts'
import { DEFAULT_MAX_CHUNK_BYTES } from '../common/limits.ts'
import { MAX_SOURCEMAP_BYTES } from './sourcemaps/limits.ts'

/** The CLI's help text: every command and option, with the defaults it states. */
export const USAGE = `Usage: sessionwatch <command> [options]

Commands:
  serve                                   Run the service (what npm start runs)
  project create --name NAME --domain DOMAIN [--retention-days N] [--ip-storage full|truncated|none]
                 [--mask-fields a,b,c] [--rate-limit N] [--daily-quota N] [--recording-budget SIZE] [--json]
                                          Create a project and print its keys
  project update --project ID [--name NAME] [--domain DOMAIN] [--retention-days N]
                 [--ip-storage full|truncated|none|default] [--mask-fields a,b,c]
                 [--rate-limit N|default] [--daily-quota N|none] [--recording-budget SIZE|none]
                 [--public-replays on|off] [--json]
                                          Change a project; IP storage and masked fields apply to what arrives
                                          from then on (default: follow IP_STORAGE; --mask-fields "" clears);
                                          --rate-limit: ingest requests/s per process (0: none; default:
                                          INGEST_RATE_LIMIT); --daily-quota: events per UTC day (none: no quota);
                                          --recording-budget: recording bytes kept (500MB, 2GiB), oldest deleted;
                                          --public-replays: members may share one visit's replay by a public
                                          link (off: every such link stops working)
  project list [--json]                   List projects with their recording bytes (API keys are stored hashed)
  project rotate-key --project ID [--ingest | --upload] [--json]
                                          Replace the API key (and the ingest key with --ingest), or with
                                          --upload only the upload key (made if the project has none yet)
  project delete --project ID --yes [--json]
                                          Delete a project whole: its visits with their events and recordings
                                          (their objects too), issues, webhooks, source maps, release health and
                                          keys. Without --yes, says what would go. Run again if it was stopped
  import --project ID FILE|-              Import NDJSON sessions (- reads standard input); recording chunks over
                                          RECORDING_MAX_CHUNK_BYTES / RECORDING_MAX_SESSION_BYTES are dropped
  export --project ID [--date YYYY-MM-DD] [--no-recording]
                                          Write the project's sessions (with their screen recordings,
                                          unless --no-recording) as NDJSON to standard output
  sourcemaps upload (--project ID | --endpoint URL --key KEY) --url-prefix URL DIR [--release R]
                                          Upload every *.map under DIR for the minified file beside it: its
                                          URL is URL + its path in DIR (URL may be ~/path: any host). All maps
                                          are checked first; one bad map stores none. Up to ${byteSize(MAX_SOURCEMAP_BYTES)} each.
                                          --project writes straight to DATABASE_URL; --endpoint sends them to
                                          a running service with its upload key (or SESSIONWATCH_ENDPOINT and
                                          SESSIONWATCH_UPLOAD_KEY)
  sourcemaps list --project ID [--json]   List the project's source maps
  sourcemaps delete --project ID (--url URL | --all)
                                          Delete the map of one minified file's URL, or all of the project's
  retention run                           Delete every session past its project's retention now
  storage check [--fix] [--json]          List objects of the recording stores that no chunk names (orphans) and
                                          chunks whose object is missing; --fix deletes those orphans and marks
                                          those chunks dropped. Exit 1 when it found any and did not fix them
  storage migrate --to URL [--json]       Move every recording chunk from RECORDINGS_URL's store to URL (database:,
                                          file:PATH or s3://BUCKET/PREFIX), whether the service runs or not
  erase --project ID (--user ID | --session ID | --ip IP) [--json]
                                          Delete a visitor's visits with their events and recordings, as
                                          retention deletes them; --ip matches the address as stored
  issue resolve|ignore|reopen --project ID ISSUE_ID
                                          Set an issue's status (a resolved issue reopens when it occurs again)
  webhook add --project ID --url URL [--json]
                                          Post the project's new issues and regressions to URL (Slack, Discord
                                          and Mattermost incoming-webhook URLs work as they are); prints the
                                          signing secret (secret with --json) once
  webhook list --project ID [--json]      List the project's webhooks
  webhook remove --project ID WEBHOOK_ID  Remove a webhook (its pending deliveries are not sent)
  admin reset-password                    Set a new generated password for the first owner (admin) and print it
  user add --email E --role ROLE [--projects ID,ID] [--json]
                                          Invite a person: ROLE is viewer, member, admin or owner, on every
                                          project or on the projects named; prints a one-time link (7 days)
  user list [--json]                      List people with their roles and last sign-in
  user set-role --email E --role ROLE [--projects ID,ID] [--json]
                                          Change a person's role (replaces their per-project roles)
  user remove --email E                   Remove a person; their sign-ins end at once
  user reset-password --email E [--json]  End a person's password and sign-ins; prints a link to set a new one
  user rename --email E --to NEW          Change the address a person signs in with (rename admin to yours)
  audit list [--project ID] [--user EMAIL] [--since YYYY-MM-DD] [--limit N] [--json]
                                          Print the audit trail, newest first: sign-ins, views of visits,
                                          replays and issues, erasures, key, settings and role changes

Environment: DATABASE_URL (default ${DEFAULT_SQLITE_FILE}), PORT (${DEFAULT_PORT}), HOST (${DEFAULT_HOST}), TRUST_PROXY,
GEOIP_DB, RETENTION_SWEEP_SECONDS (${DEFAULT_SWEEP_SECONDS}), LOG_LEVEL (${DEFAULT_LOG_LEVEL}), ADMIN_PASSWORD (dashboard; unset: generated on
first start), RECORDING_MAX_CHUNK_BYTES (${DEFAULT_MAX_CHUNK_BYTES}), RECORDING_MAX_SESSION_BYTES (${DEFAULT_MAX_SESSION_BYTES}),
PUBLIC_URL (links in webhook messages), WEBHOOK_ALLOW_PRIVATE (false), SOURCEMAP_CACHE_BYTES (${DEFAULT_SOURCEMAP_CACHE_BYTES}),
IP_STORAGE (${DEFAULT_IP_STORAGE}), RECORDINGS_URL (SQLite: file:./data/recordings beside the database; PostgreSQL:
database:; or s3://BUCKET/PREFIX), S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE (false), RECORDINGS_MIN_FREE
(${DEFAULT_RECORDINGS_MIN_FREE * 100}%), AUDIT_RETENTION_DAYS (${DEFAULT_AUDIT_RETENTION_DAYS}), OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET,
OIDC_ALLOWED_DOMAINS, OIDC_DEFAULT_ROLE (viewer), OIDC_ROLE_CLAIM, PASSWORD_LOGIN (true), SMTP_URL, SMTP_FROM.`
