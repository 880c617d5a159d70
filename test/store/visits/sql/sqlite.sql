-- list: first page
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "last_seen_at" >= ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- list: one UTC day (date=)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "last_seen_at" >= ? and "start_day" = ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- list: page after a cursor (after=): the lastSeenAt index from the cursor's key on
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "last_seen_at" >= ? and (last_seen_at, id) < (?, ?) order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- list: one UTC day, after a cursor
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and +last_seen_at >= ? and (last_seen_at, id) < (?, ?) and "start_day" = ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- list: many visits have the term (errors=true): walk the list order, probe the term
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id") and "last_seen_at" >= ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- list: few visits have the term (type=USER_REPORT): start from its rows
select "sessions"."id", "sessions"."session_key", "sessions"."started_at", "sessions"."last_seen_at", "sessions"."ip", "sessions"."country", "sessions"."user_agent", "sessions"."utm", "sessions"."entry_url", "sessions"."browser", "sessions"."os", "sessions"."user_id", "sessions"."user_traits", "sessions"."tags", "sessions"."release", "sessions"."environment", "sessions"."events_total", "sessions"."events_errors", "sessions"."events_slow", "sessions"."recording_chunks", "sessions"."recording_bytes", "sessions"."recording_dropped" from (select "d"."session_id" from "session_terms" as "d" where "d"."project_id" = ? and "d"."term" = ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "d"."project_id" and "t"."term" = ? and "t"."session_id" = "d"."session_id")) as "c" cross join "sessions" where "sessions"."project_id" = ? and "sessions"."id" = "c"."session_id" and +sessions.last_seen_at >= ? order by +sessions.last_seen_at desc, "sessions"."id" desc limit ? offset ?;

-- list: the text filters' matches lead (their ids, found once): each visit that passes the other filters read by its id
select "sessions"."id", "sessions"."session_key", "sessions"."started_at", "sessions"."last_seen_at", "sessions"."ip", "sessions"."country", "sessions"."user_agent", "sessions"."utm", "sessions"."entry_url", "sessions"."browser", "sessions"."os", "sessions"."user_id", "sessions"."user_traits", "sessions"."tags", "sessions"."release", "sessions"."environment", "sessions"."events_total", "sessions"."events_errors", "sessions"."events_slow", "sessions"."recording_chunks", "sessions"."recording_bytes", "sessions"."recording_dropped" from (select "d"."session_id" from (select cast(? as text) as "project_id", "m"."session_id" from (select value as session_id from json_each(?)) as "m") as "d" where exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "d"."project_id" and "t"."term" = ? and "t"."session_id" = "d"."session_id")) as "c" cross join "sessions" where "sessions"."project_id" = ? and "sessions"."id" = "c"."session_id" and +sessions.last_seen_at >= ? order by +sessions.last_seen_at desc, "sessions"."id" desc limit ? offset ?;

-- list: many visits match the text filters' ids: walk the list order, probe the ids as a set
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "id" in (select value as session_id from json_each(?)) and "last_seen_at" >= ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- count: partial days at both ends of from/to
select coalesce((select sum("sessions") as "n" from "session_days" where "project_id" = ? and "day" >= ? and "day" < ?), 0) + coalesce((select count(*) as "n" from "sessions" where "project_id" = ? and "started_at" >= ? and "started_at" < ?), 0) + coalesce((select count(*) as "n" from "sessions" where "project_id" = ? and "started_at" >= ? and "started_at" < ?), 0) - (select count(*) as "n" from "sessions" where "project_id" = ? and "last_seen_at" < ? and +started_at >= ? and +started_at < ?) as "n";

-- count: one term (errors=true): term_days, then past retention from the lastSeenAt index
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = ? and "term" = ?), 0) - (select count(*) as "n" from "sessions" where "project_id" = ? and "last_seen_at" < ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id")) as "n";

-- count: two terms, from their bitmaps
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = ? and "term" = ?), 0) - (select count(*) as "n" from "sessions" where "project_id" = ? and "last_seen_at" < ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id")) as "n";
select coalesce((select sum("sessions") as "n" from "term_days" where "project_id" = ? and "term" = ?), 0) - (select count(*) as "n" from "sessions" where "project_id" = ? and "last_seen_at" < ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id")) as "n";
select sum(sw_bits_count("c"."bits")) as n from ((select sw_bits_and_agg("bits") as "bits" from "term_bits" where "project_id" = ? and "term" in (?, ?) group by "chunk" having count(*) = ?)) as c;
select count(*) as n from ((select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id") and exists (select "t"."session_id" from "session_terms" as "t" where "t"."project_id" = "sessions"."project_id" and "t"."term" = ? and "t"."session_id" = "sessions"."id") and "last_seen_at" < ?)) as c;

-- events: page after a cursor (getSession streamed)
select "seq", "id", "type", "created_at", "url", "method", "message", "stack", "status_code", "duration_ms", "req_body", "res_body", "fingerprint", "issue_id" from "events" where "project_id" = ? and "session_id" = ? and (created_at, seq) > (?, ?) order by "created_at", "seq" limit ?;

-- export: sessions after a cursor
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "last_seen_at" >= ? and (started_at, id) > (?, ?) order by "started_at", "id" limit ?;

-- issues: first page
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- issues: page after a cursor
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = ? and (last_seen_at, id) < (?, ?) order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- issues: one status, after a cursor
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = ? and "status" = ? and (last_seen_at, id) < (?, ?) order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- issues: one status
select "id", "grouping_version", "type", "title", "culprit", "first_seen_at", "last_seen_at", "events", "sessions", "status" from "issues" where "project_id" = ? and "status" = ? order by "last_seen_at" desc, "id" desc limit ? offset ?;

-- issues: total of a period
select count(*) as "n" from "issues" where "project_id" = ? and "last_seen_at" >= ? and "last_seen_at" < ?;

-- issue: latest event
select "last_session_id", "last_event_id" from "issues" where "project_id" = ? and "id" = ?;
select "e"."seq", "e"."id", "e"."type", "e"."created_at", "e"."url", "e"."method", "e"."message", "e"."stack", "e"."status_code", "e"."duration_ms", "e"."req_body", "e"."res_body", "e"."fingerprint", "e"."issue_id", "e"."session_id" from "events" as "e" inner join "sessions" as "s" on "s"."project_id" = "e"."project_id" and "s"."id" = "e"."session_id" where "e"."project_id" = ? and "e"."session_id" = ? and "e"."id" = ? and "s"."last_seen_at" >= ?;

-- issue: events per day
select "day", "events" from "issue_days" where "project_id" = ? and "issue_id" = ? and "day" >= ? order by "day";

-- list: visits of an issue (issue=)
select "sessions"."id", "sessions"."session_key", "sessions"."started_at", "sessions"."last_seen_at", "sessions"."ip", "sessions"."country", "sessions"."user_agent", "sessions"."utm", "sessions"."entry_url", "sessions"."browser", "sessions"."os", "sessions"."user_id", "sessions"."user_traits", "sessions"."tags", "sessions"."release", "sessions"."environment", "sessions"."events_total", "sessions"."events_errors", "sessions"."events_slow", "sessions"."recording_chunks", "sessions"."recording_bytes", "sessions"."recording_dropped" from (select "d"."session_id" from "issue_sessions" as "d" where "d"."project_id" = ? and "d"."issue_id" = ?) as "c" cross join "sessions" where "sessions"."project_id" = ? and "sessions"."id" = "c"."session_id" and +sessions.last_seen_at >= ? order by +sessions.last_seen_at desc, "sessions"."id" desc limit ? offset ?;

-- issue: its recent visits (getIssue), from its links
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = ? and "id" in (select "session_id" from "issue_sessions" where "project_id" = ? and "issue_id" = ?) and +last_seen_at >= ? order by case when "recording_chunks" > ? then 1 else 0 end desc, +last_seen_at desc, "id" desc limit ?;

-- ingest: a group's live visits reserved in one statement, each found by its key
with v ("n", "last", "total", "errors", "slow", "ip", "country", "user_agent", "utm", "entry_url", "browser", "os", "user_id", "user_traits", "tags", "release", "environment", "project_id", "session_key", "cutoff", "started") as (values (cast(? as integer), cast(? as bigint), cast(? as integer), cast(? as integer), cast(? as integer), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as bigint), cast(? as bigint)), (cast(? as integer), cast(? as bigint), cast(? as integer), cast(? as integer), cast(? as integer), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as bigint), cast(? as bigint)))
update sessions set "next_seq" = sessions.next_seq + "v"."n", "last_seen_at" = case when sessions.last_seen_at < "v"."last" then "v"."last" else sessions.last_seen_at end, "events_total" = sessions.events_total + "v"."total", "events_errors" = sessions.events_errors + "v"."errors", "events_slow" = sessions.events_slow + "v"."slow", "ip" = coalesce("sessions"."ip", "v"."ip"), "country" = coalesce("sessions"."country", "v"."country"), "user_agent" = coalesce("sessions"."user_agent", "v"."user_agent"), "utm" = coalesce("sessions"."utm", "v"."utm"), "entry_url" = coalesce("sessions"."entry_url", "v"."entry_url"), "browser" = coalesce("sessions"."browser", "v"."browser"), "os" = coalesce("sessions"."os", "v"."os"), "user_id" = coalesce("v"."user_id", "sessions"."user_id"), "user_traits" = case when cast("v"."user_id" as text) is null then "sessions"."user_traits" else "v"."user_traits" end, "tags" = coalesce("v"."tags", "sessions"."tags"), "release" = coalesce("v"."release", "sessions"."release"), "environment" = coalesce("v"."environment", "sessions"."environment")
from v where sessions.project_id = "v"."project_id" and sessions.session_key = "v"."session_key"
and +sessions.last_seen_at >= "v"."cutoff" and +sessions.started_at <= "v"."started"
returning "sessions"."project_id", "sessions"."session_key", "sessions"."id", "sessions"."next_seq", "sessions"."start_day", "sessions"."num", "sessions"."terms", "sessions"."country", "sessions"."browser", "sessions"."os";
