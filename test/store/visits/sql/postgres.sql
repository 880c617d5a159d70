-- list: first page
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 order by "last_seen_at" desc, "id" desc limit $3 offset $4;

-- list: one UTC day (date=)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and "start_day" = $3 order by "last_seen_at" desc, "id" desc limit $4 offset $5;

-- list: page after a cursor (after=): the lastSeenAt index from the cursor's key on
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and (last_seen_at, id) < ($3, $4) order by "last_seen_at" desc, "id" desc limit $5 offset $6;

-- list: one UTC day, after a cursor
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and +last_seen_at >= $2 and (last_seen_at, id) < ($3, $4) and "start_day" = $5 order by "last_seen_at" desc, "id" desc limit $6 offset $7;

-- list: many visits have the term (errors=true): walk the list order, probe the term
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $2 and "t"."session_id" = "sessions"."id") and "last_seen_at" >= $3 order by "last_seen_at" desc, "id" desc limit $4 offset $5;

-- list: few visits have the term (type=USER_REPORT): start from its rows
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "id" in (select "session_id" from "session_terms" where "project_id" = $2 and "term" = $3) and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $4 and "t"."session_id" = "sessions"."id") and +last_seen_at >= $5 order by +last_seen_at desc, "id" desc limit $6 offset $7;

-- count: partial days at both ends of from/to
select coalesce((select sum("sessions") as "n" from "session_days" where "project_id" = $1 and "day" >= $2 and "day" < $3), 0) + coalesce((select count(*) as "n" from "sessions" where "project_id" = $4 and "started_at" >= $5 and "started_at" < $6), 0) + coalesce((select count(*) as "n" from "sessions" where "project_id" = $7 and "started_at" >= $8 and "started_at" < $9), 0) - (select count(*) as "n" from "sessions" where "project_id" = $10 and "last_seen_at" < $11 and +started_at >= $12 and +started_at < $13) as "n";

-- count: one term (errors=true): term_days, then past retention from the lastSeenAt index
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = $1 and "term" = $2), 0) - (select count(*) as "n" from "sessions" where "project_id" = $3 and "last_seen_at" < $4 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $5 and "t"."session_id" = "sessions"."id")) as "n";

-- count: two terms, from the rarer one's rows
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = $1 and "term" = $2), 0) - (select count(*) as "n" from "sessions" where "project_id" = $3 and "last_seen_at" < $4 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $5 and "t"."session_id" = "sessions"."id")) as "n";
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = $1 and "term" = $2), 0) - (select count(*) as "n" from "sessions" where "project_id" = $3 and "last_seen_at" < $4 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $5 and "t"."session_id" = "sessions"."id")) as "n";
select count(*) as n from ((select "d"."session_id" from "session_terms" as "d" where "d"."project_id" = $1 and "d"."term" = $2 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "d"."project_id" and "t"."term" = $3 and "t"."session_id" = "d"."session_id"))) as c;
select count(*) as n from ((select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $2 and "t"."session_id" = "sessions"."id") and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = $3 and "t"."session_id" = "sessions"."id") and "last_seen_at" < $4)) as c;

-- events: page after a cursor (getSession streamed)
select "seq", "id", "type", "created_at", "url", "method", "message", "stack", "status_code", "duration_ms", "req_body", "res_body", "fingerprint", "issue_id" from "events" where "project_id" = $1 and "session_id" = $2 and (created_at, seq) > ($3, $4) order by "created_at", "seq" limit $5;

-- export: sessions after a cursor
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and (started_at, id) > ($3, $4) order by "started_at", "id" limit $5;

-- issues: first page
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = $1 order by "last_seen_at" desc, "id" desc limit $2 offset $3;

-- issues: page after a cursor
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = $1 and (last_seen_at, id) < ($2, $3) order by "last_seen_at" desc, "id" desc limit $4 offset $5;

-- issues: one status, after a cursor
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = $1 and "status" = $2 and (last_seen_at, id) < ($3, $4) order by "last_seen_at" desc, "id" desc limit $5 offset $6;

-- issues: one status
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = $1 and "status" = $2 order by "last_seen_at" desc, "id" desc limit $3 offset $4;

-- issues: total of a period
select count(*) as "n" from "issues" where "project_id" = $1 and "last_seen_at" >= $2 and "last_seen_at" < $3;

-- issue: latest event
select "last_session_id", "last_event_id" from "issues" where "project_id" = $1 and "id" = $2;
select "e"."seq", "e"."id", "e"."type", "e"."created_at", "e"."url", "e"."method", "e"."message", "e"."stack", "e"."status_code", "e"."duration_ms", "e"."req_body", "e"."res_body", "e"."fingerprint", "e"."issue_id", "e"."session_id" from "events" as "e" inner join "sessions" as "s" on "s"."project_id" = "e"."project_id" and "s"."id" = "e"."session_id" where "e"."project_id" = $1 and "e"."session_id" = $2 and "e"."id" = $3 and "s"."last_seen_at" >= $4;

-- issue: events per day
select "day", "events" from "issue_days" where "project_id" = $1 and "issue_id" = $2 and "day" >= $3 order by "day";

-- list: visits of an issue (issue=)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "id" in (select "session_id" from "issue_sessions" where "project_id" = $2 and "issue_id" = $3) and +last_seen_at >= $4 order by +last_seen_at desc, "id" desc limit $5 offset $6;

-- ingest: a group's live visits reserved in one statement, each found by its key
with v ("n", "last", "total", "errors", "slow", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "project_id", "session_key", "cutoff", "started") as (values (cast($1 as integer), cast($2 as bigint), cast($3 as integer), cast($4 as integer), cast($5 as integer), cast($6 as text), cast($7 as text), cast($8 as text), cast($9 as text), cast($10 as text), cast($11 as text), cast($12 as text), cast($13 as text), cast($14 as text), cast($15 as text), cast($16 as text), cast($17 as text), cast($18 as text) collate "C", cast($19 as text) collate "C", cast($20 as bigint), cast($21 as bigint)), (cast($22 as integer), cast($23 as bigint), cast($24 as integer), cast($25 as integer), cast($26 as integer), cast($27 as text), cast($28 as text), cast($29 as text), cast($30 as text), cast($31 as text), cast($32 as text), cast($33 as text), cast($34 as text), cast($35 as text), cast($36 as text), cast($37 as text), cast($38 as text), cast($39 as text) collate "C", cast($40 as text) collate "C", cast($41 as bigint), cast($42 as bigint)))
update sessions set "next_seq" = sessions.next_seq + "v"."n", "last_seen_at" = case when sessions.last_seen_at < "v"."last" then "v"."last" else sessions.last_seen_at end, "events_total" = sessions.events_total + "v"."total", "events_errors" = sessions.events_errors + "v"."errors", "events_slow" = sessions.events_slow + "v"."slow", "ip" = coalesce("sessions"."ip", "v"."ip"), "country" = coalesce("sessions"."country", "v"."country"), "user_agent" = coalesce("sessions"."user_agent", "v"."user_agent"), "utm" = coalesce("sessions"."utm", "v"."utm"), "entry_url" = coalesce("sessions"."entry_url", "v"."entry_url"), "browser" = coalesce("sessions"."browser", "v"."browser"), "os" = coalesce("sessions"."os", "v"."os"), "user_id" = coalesce("v"."user_id", "sessions"."user_id"), "user_traits" = case when cast("v"."user_id" as text) is null then "sessions"."user_traits" else "v"."user_traits" end, "tags" = coalesce("v"."tags", "sessions"."tags"), "release" = coalesce("v"."release", "sessions"."release"), "environment" = coalesce("v"."environment", "sessions"."environment")
from v where sessions.project_id = "v"."project_id" and sessions.session_key = "v"."session_key"
and +sessions.last_seen_at >= "v"."cutoff" and +sessions.started_at <= "v"."started"
returning "sessions"."project_id", "sessions"."session_key", "sessions"."id", "sessions"."next_seq", "sessions"."start_day", "sessions"."terms", "sessions"."country", "sessions"."browser", "sessions"."os";
