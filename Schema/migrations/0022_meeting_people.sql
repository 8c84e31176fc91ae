-- The addresses each meeting concerns: every organizer and attendee email of any of its events
-- (deleted events included, as for visibility), with the meeting's start, so that `meetings
-- --with EMAIL` walks one index range in the listing's order instead of gathering the address's
-- meetings (20,000 at a million) into a set for every page. Kept by the triggers below for every
-- writer; a row stays while any event of the meeting still names the address.
CREATE TABLE meeting_people (
    meeting_id  INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    email       TEXT    NOT NULL COLLATE NOCASE,
    starts_at   INTEGER,                              -- the meeting's, kept in step
    PRIMARY KEY (meeting_id, email)
) WITHOUT ROWID;
CREATE INDEX meeting_people_walk ON meeting_people(email, starts_at, meeting_id);

INSERT OR IGNORE INTO meeting_people (meeting_id, email, starts_at)
    SELECT e.meeting_id, e.organizer_email, m.starts_at FROM events e JOIN meetings m ON m.id = e.meeting_id
    WHERE e.organizer_email IS NOT NULL
    UNION ALL
    SELECT e.meeting_id, ea.email, m.starts_at FROM event_attendees ea JOIN events e ON e.id = ea.event_id JOIN meetings m ON m.id = e.meeting_id;

-- An address joins a meeting with an event naming it.
CREATE TRIGGER meeting_people_attendee_insert AFTER INSERT ON event_attendees BEGIN
    INSERT OR IGNORE INTO meeting_people (meeting_id, email, starts_at)
        SELECT e.meeting_id, NEW.email, m.starts_at FROM events e JOIN meetings m ON m.id = e.meeting_id WHERE e.id = NEW.event_id;
END;

CREATE TRIGGER meeting_people_event_insert AFTER INSERT ON events
WHEN NEW.meeting_id IS NOT NULL AND NEW.organizer_email IS NOT NULL BEGIN
    INSERT OR IGNORE INTO meeting_people (meeting_id, email, starts_at)
        SELECT m.id, NEW.organizer_email, m.starts_at FROM meetings m WHERE m.id = NEW.meeting_id;
END;

-- It leaves when no event of the meeting names it any more. An attendee deleted with its event
-- finds no event (its meeting is unknown): the event's own trigger rechecks the whole meeting.
CREATE TRIGGER meeting_people_attendee_delete AFTER DELETE ON event_attendees BEGIN
    DELETE FROM meeting_people
    WHERE meeting_id = (SELECT e.meeting_id FROM events e WHERE e.id = OLD.event_id) AND email = OLD.email
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = meeting_people.meeting_id
                            AND (e.organizer_email = meeting_people.email
                                 OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND ea.email = meeting_people.email)));
END;

CREATE TRIGGER meeting_people_attendee_update AFTER UPDATE OF event_id, email ON event_attendees BEGIN
    DELETE FROM meeting_people
    WHERE meeting_id = (SELECT e.meeting_id FROM events e WHERE e.id = OLD.event_id) AND email = OLD.email
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = meeting_people.meeting_id
                            AND (e.organizer_email = meeting_people.email
                                 OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND ea.email = meeting_people.email)));
    INSERT OR IGNORE INTO meeting_people (meeting_id, email, starts_at)
        SELECT e.meeting_id, NEW.email, m.starts_at FROM events e JOIN meetings m ON m.id = e.meeting_id WHERE e.id = NEW.event_id;
END;

-- An event moved to another meeting (or given another organizer) takes its addresses along.
CREATE TRIGGER meeting_people_event_update AFTER UPDATE OF meeting_id, organizer_email ON events
WHEN OLD.meeting_id IS NOT NEW.meeting_id OR OLD.organizer_email IS NOT NEW.organizer_email BEGIN
    DELETE FROM meeting_people
    WHERE meeting_id = OLD.meeting_id
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = meeting_people.meeting_id
                            AND (e.organizer_email = meeting_people.email
                                 OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND ea.email = meeting_people.email)));
    INSERT OR IGNORE INTO meeting_people (meeting_id, email, starts_at)
        SELECT m.id, NEW.organizer_email, m.starts_at FROM meetings m WHERE m.id = NEW.meeting_id AND NEW.organizer_email IS NOT NULL
        UNION ALL
        SELECT m.id, ea.email, m.starts_at FROM event_attendees ea JOIN meetings m ON m.id = NEW.meeting_id WHERE ea.event_id = NEW.id;
END;

CREATE TRIGGER meeting_people_event_delete AFTER DELETE ON events WHEN OLD.meeting_id IS NOT NULL BEGIN
    DELETE FROM meeting_people
    WHERE meeting_id = OLD.meeting_id
        AND NOT EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = meeting_people.meeting_id
                            AND (e.organizer_email = meeting_people.email
                                 OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND ea.email = meeting_people.email)));
END;

-- The rows carry their meeting's start, the listing's order.
CREATE TRIGGER meeting_people_meeting_start AFTER UPDATE OF starts_at ON meetings
WHEN OLD.starts_at IS NOT NEW.starts_at BEGIN
    UPDATE meeting_people SET starts_at = NEW.starts_at WHERE meeting_id = NEW.id;
END;
