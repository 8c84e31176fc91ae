-- History spans are kept per calendar: a calendar enabled or discovered after its account
-- fetched a span has not got that span's history. The spans fetched so far are taken to
-- cover the calendars enabled now (a disabled calendar's history was not fetched); claims in
-- progress are dropped (their fetch records its spans all the same, or they are asked again).
CREATE TABLE calendar_history_spans_per_calendar (
    id                INTEGER  PRIMARY KEY,
    account_id        INTEGER  NOT NULL REFERENCES calendar_accounts(id) ON DELETE CASCADE,
    calendar_id       INTEGER  NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
    starts_at         INTEGER  NOT NULL,                   -- ms since 1970
    ends_at           INTEGER  NOT NULL,
    claimed_by        TEXT,                                -- host/pid of the daemon fetching it
    claim_expires_at  INTEGER,                             -- a claim not fetched by then is free
    fetched_at        INTEGER                              -- NULL while claimed
);
INSERT INTO calendar_history_spans_per_calendar (account_id, calendar_id, starts_at, ends_at, fetched_at)
    SELECT s.account_id, c.id, s.starts_at, s.ends_at, s.fetched_at
    FROM calendar_history_spans s JOIN calendars c ON c.account_id = s.account_id AND c.is_enabled
    WHERE s.fetched_at IS NOT NULL;
DROP TABLE calendar_history_spans;
ALTER TABLE calendar_history_spans_per_calendar RENAME TO calendar_history_spans;
CREATE INDEX calendar_history_spans_account ON calendar_history_spans(account_id);
CREATE INDEX calendar_history_spans_calendar ON calendar_history_spans(calendar_id);
