-- Listings hide a meeting that has neither a live event nor a recording linked, testing each
-- meeting listed with `EXISTS (… events WHERE meeting_id = ? AND deleted_at IS NULL)`. With the
-- meeting index alone each test looked the event up in the table: at a million meetings that
-- was half of the statement listing `meetings --with` (20,000 meetings: 40 ms, 12 ms with
-- `deleted_at` in the index). Every other reader of the index keys on `meeting_id` as before.
DROP INDEX events_meeting;
CREATE INDEX events_meeting ON events(meeting_id, deleted_at);
