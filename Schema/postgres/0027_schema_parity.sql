-- Found by comparing the two dialects' schemas (SchemaParityTests): SQLite's migration 0025
-- put `deleted_at` into `events_meeting`, so that hiding meetings without a live event tests
-- each listed meeting from the index alone; PostgreSQL kept the index on `meeting_id` only and
-- looked each event up in the table.
DROP INDEX events_meeting;
CREATE INDEX events_meeting ON events(meeting_id, deleted_at);
