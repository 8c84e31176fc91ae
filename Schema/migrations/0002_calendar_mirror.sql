-- Calendar mirror bookkeeping: which remote resource an occurrence came from, and a
-- fingerprint of its mirrored fields, so a sync replaces a resource's occurrences as a whole
-- and leaves unchanged rows (and the links that read them) untouched.

-- CalDAV href, ICS file/UID, Graph event id: a change replaces all occurrences of a resource.
ALTER TABLE events ADD COLUMN resource TEXT;
-- 64-bit FNV-1a of the mirrored fields and attendees.
ALTER TABLE events ADD COLUMN fingerprint INTEGER;
CREATE INDEX events_resource ON events(calendar_id, resource);
CREATE INDEX events_series ON events(series_uid);
CREATE UNIQUE INDEX calendar_accounts_source ON calendar_accounts(provider, owner_id, display_name);
