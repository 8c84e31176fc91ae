-- Full-text search (SQLite FTS5) over meeting titles, attendee names and emails, recording
-- titles and transcripts: `steno search TEXT`.

-- One row per meeting (rowid = meetings.id), refreshed by the calendar mirror whenever an
-- event of the meeting changes.
CREATE VIRTUAL TABLE meeting_search USING fts5(title, attendees, tokenize = 'unicode61 remove_diacritics 2');

-- One row per recording (rowid = recordings.id), kept by triggers.
CREATE VIRTUAL TABLE recording_search USING fts5(title, transcript, path, tokenize = 'unicode61 remove_diacritics 2');

CREATE TRIGGER recordings_search_insert AFTER INSERT ON recordings BEGIN
    INSERT INTO recording_search (rowid, title, transcript, path) VALUES (new.id, new.title, new.transcript, NULL);
END;
CREATE TRIGGER recordings_search_update AFTER UPDATE OF title, transcript ON recordings BEGIN
    DELETE FROM recording_search WHERE rowid = old.id;
    INSERT INTO recording_search (rowid, title, transcript, path)
        VALUES (new.id, new.title, new.transcript, (SELECT group_concat(path, ' ') FROM recording_paths WHERE recording_id = new.id));
END;
CREATE TRIGGER recording_paths_search AFTER INSERT ON recording_paths BEGIN
    DELETE FROM recording_search WHERE rowid = new.recording_id;
    INSERT INTO recording_search (rowid, title, transcript, path)
        SELECT r.id, r.title, r.transcript, (SELECT group_concat(path, ' ') FROM recording_paths WHERE recording_id = r.id)
        FROM recordings r WHERE r.id = new.recording_id;
END;
CREATE TRIGGER recordings_search_delete AFTER DELETE ON recordings BEGIN
    DELETE FROM recording_search WHERE rowid = old.id;
END;

-- Whatever the catalog held before this migration.
INSERT INTO recording_search (rowid, title, transcript, path)
    SELECT r.id, r.title, r.transcript, (SELECT group_concat(path, ' ') FROM recording_paths WHERE recording_id = r.id) FROM recordings r;
INSERT INTO meeting_search (rowid, title, attendees)
    SELECT m.id, m.title,
        (SELECT group_concat(coalesce(a.name, '') || ' ' || a.email, ' ') FROM event_attendees a JOIN events e ON e.id = a.event_id
         WHERE e.meeting_id = m.id)
    FROM meetings m;

-- Linking reads, per recording owner: their calendars' events in a time range, and the
-- events they organise.
CREATE INDEX events_calendar_time ON events(calendar_id, starts_at) WHERE deleted_at IS NULL;
CREATE INDEX events_organizer ON events(organizer_email) WHERE deleted_at IS NULL;
