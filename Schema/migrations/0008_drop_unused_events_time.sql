-- events_time (starts_at, ends_at) is read by no query any more: every time-range lookup of
-- events goes through the calendar (events_calendar_time), the organizer
-- (events_organizer_time), an attendee (event_attendees_email) or event ids. It was still
-- written for every mirrored event (one of nine b-trees per events row).
DROP INDEX events_time;
