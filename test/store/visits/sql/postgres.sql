-- list: first page
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 order by "last_seen_at" desc, "id" desc limit $3 offset $4;

-- list: one UTC day (date=)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and "start_day" = $3 order by "last_seen_at" desc, "id" desc limit $4 offset $5;

-- list: errors only (dashboard)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and events_errors > 0 order by "last_seen_at" desc, "id" desc limit $3 offset $4;

-- list: with a recording (dashboard)
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and recording_chunks > 0 order by "last_seen_at" desc, "id" desc limit $3 offset $4;

-- count: partial days at both ends of from/to
select sum("sessions") as "n" from "session_days" where "project_id" = $1 and "day" >= $2 and "day" < $3;
select count(*) as "n" from "sessions" where "project_id" = $1 and "started_at" >= $2 and "started_at" < $3;
select count(*) as "n" from "sessions" where "project_id" = $1 and "started_at" >= $2 and "started_at" < $3;
select count(*) as "n" from "sessions" where "project_id" = $1 and "last_seen_at" < $2 and +started_at >= $3 and +started_at < $4;

-- count: errors only, capped (dashboard)
select count(*) as "n" from (select "id" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and events_errors > 0 limit $3) as "s";

-- events: page after a cursor (getSession streamed)
select "seq", "id", "type", "created_at", "url", "method", "message", "stack", "status_code", "duration_ms", "req_body", "res_body" from "events" where "project_id" = $1 and "session_id" = $2 and (created_at, seq) > ($3, $4) order by "created_at", "seq" limit $5;

-- export: sessions after a cursor
select "id", "session_key", "started_at", "last_seen_at", "ip", "country", "user_agent", "utm", "events_total", "events_errors", "events_slow", "recording_chunks", "recording_bytes", "recording_dropped" from "sessions" where "project_id" = $1 and "last_seen_at" >= $2 and (started_at, id) > ($3, $4) order by "started_at", "id" limit $5;
