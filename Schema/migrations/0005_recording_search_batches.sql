-- A recording's full-text search row is written by the store once per ingest transaction
-- (one statement for the whole batch), not by triggers per inserted row: a new recording
-- used to be indexed when inserted, then deleted and indexed again when its path was
-- stored — three FTS5 writes per file, most of what storing a batch of files cost.
DROP TRIGGER recordings_search_insert;
DROP TRIGGER recording_paths_search;
