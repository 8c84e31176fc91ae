-- Meeting listings read a member's meetings (and `--with` an address's) as one set through
-- indexes: events by calendar and by organizer, deleted events included (visibility counts
-- them), each with its meeting so the set is read from the index alone.
CREATE INDEX events_calendar_meeting ON events(calendar_id, meeting_id);
CREATE INDEX events_organizer_meeting ON events(organizer_email, meeting_id);
