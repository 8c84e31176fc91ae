-- The spans of each account's history mirrored on demand for recordings dated outside the
-- mirrored window: a row is a claim while a daemon fetches it (fetched_at NULL, expiring), then
-- a span fetched, so no daemon asks the provider for it again.
CREATE TABLE calendar_history_spans (
    id                INTEGER  PRIMARY KEY,
    account_id        INTEGER  NOT NULL REFERENCES calendar_accounts(id) ON DELETE CASCADE,
    starts_at         INTEGER  NOT NULL,                   -- ms since 1970
    ends_at           INTEGER  NOT NULL,
    claimed_by        TEXT,                                -- host/pid of the daemon fetching it
    claim_expires_at  INTEGER,                             -- a claim not fetched by then is free
    fetched_at        INTEGER                              -- NULL while claimed
);
CREATE INDEX calendar_history_spans_account ON calendar_history_spans(account_id);

-- Events mirrored by a history fetch, outside the window regular syncs look at: a sync that
-- lists everything it holds does not take their absence as a deletion.
ALTER TABLE events ADD COLUMN from_history INTEGER NOT NULL DEFAULT 0;
