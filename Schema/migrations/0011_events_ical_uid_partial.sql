-- An event's iCalUID is indexed only where its meeting's identity cannot stand in for it.
-- A single event whose series UID is its iCalUID (stored as a NULL series_uid, 0010) is the
-- meeting of that identity: meetings.identity already indexes the same long key, and
-- identity lookups reach the event through it. That was a second index entry per mirrored
-- event. Lookups by iCalUID repeat the index's condition (StoredEventKeys.iCalUIDIndexed).
--
-- A row that would leave the index without being its meeting's identity keeps its series UID.
UPDATE events SET series_uid = ical_uid
WHERE series_uid IS NULL AND recurrence_id IS NULL AND ical_uid IS NOT NULL
    AND ical_uid IS NOT (SELECT identity FROM meetings WHERE meetings.id = events.meeting_id);
DROP INDEX events_ical_uid;
CREATE INDEX events_ical_uid ON events(ical_uid) WHERE series_uid IS NOT NULL OR recurrence_id IS NOT NULL;
