-- Linking scans, per recording owner, the times of the events they organise within a window:
-- with the organizer's email and the times in one index that scan reads no event rows (it
-- used to fetch every event the owner ever organised to test its time). It serves lookups by
-- organizer alone as the index it replaces did.
DROP INDEX events_organizer;
CREATE INDEX events_organizer_time ON events(organizer_email, starts_at, ends_at) WHERE deleted_at IS NULL;
