-- Found by comparing the two dialects' schemas (SchemaParityTests): PostgreSQL indexed
-- `links.event_id`, SQLite did not. The column references `events(id) ON DELETE SET NULL`, so
-- without the index every event deleted (an account removed, a calendar disabled, a change set
-- deleting events) read every link to find those to set NULL.
CREATE INDEX links_event ON links(event_id);
