-- An event's organizer is no longer also stored as one of its attendee rows: the events row
-- holds them (organizer_email, organizer_name, and now organizer_response, their own answer),
-- and readers put them first in the attendee list, as the mirror always has. The attendee
-- row repeated what the events row held, at two index entries per mirrored event.
ALTER TABLE events ADD COLUMN organizer_response TEXT
    CHECK (organizer_response = 'accepted' OR organizer_response = 'declined' OR organizer_response = 'tentative'
           OR organizer_response = 'none');
UPDATE events SET organizer_response = (
        SELECT ea.response FROM event_attendees ea WHERE ea.event_id = events.id AND ea.email = events.organizer_email)
    WHERE organizer_email IS NOT NULL;
DELETE FROM event_attendees
    WHERE email = (SELECT e.organizer_email FROM events e WHERE e.id = event_attendees.event_id);
