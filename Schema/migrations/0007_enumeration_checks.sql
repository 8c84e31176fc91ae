-- The enumeration CHECKs of the hot tables are written as chains of equalities.
--
-- SQLite evaluates `x IN ('a', 'b', 'c')` (more than two values) by building a temporary
-- b-tree of the list each time a row is written: with two such CHECKs on every attendee row,
-- this was a third of the time a calendar sync spent writing its mirror. `x = 'a' OR x = 'b'
-- OR …` allows exactly the same values and costs a few comparisons. SQLite cannot alter a
-- CHECK in place, so each table is rebuilt (create, copy, drop, rename; SQLite's documented
-- procedure), with its indexes and triggers recreated as they were. Foreign keys are off
-- while a migration runs and are checked before it commits.

-- events -----------------------------------------------------------------------------------

CREATE TABLE events_rebuilt (
    id                  INTEGER PRIMARY KEY,
    calendar_id         INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
    remote_id           TEXT    NOT NULL,             -- Graph id; CalDAV href + RECURRENCE-ID
    ical_uid            TEXT,                         -- of this occurrence
    series_uid          TEXT,                         -- of the series (Graph uid, iCalendar UID)
    recurrence_id       INTEGER,                      -- original start of an occurrence
    meeting_id          INTEGER REFERENCES meetings(id) ON DELETE SET NULL,
    title               TEXT    NOT NULL DEFAULT '',
    starts_at           INTEGER NOT NULL,
    ends_at             INTEGER NOT NULL,
    time_zone           TEXT,                         -- original IANA zone
    is_all_day          INTEGER NOT NULL DEFAULT 0 CHECK (is_all_day IN (0, 1)),
    all_day_start       TEXT,
    all_day_end         TEXT,
    status              TEXT    NOT NULL DEFAULT 'confirmed'
                                CHECK (status = 'confirmed' OR status = 'tentative' OR status = 'cancelled'),
    organizer_email     TEXT COLLATE NOCASE,
    organizer_name      TEXT,
    location            TEXT,
    online_meeting_url  TEXT,
    web_link            TEXT,
    etag                TEXT,                         -- ETag or Graph changeKey
    deleted_at          INTEGER,                      -- tombstone
    updated_at          INTEGER NOT NULL,
    resource            TEXT,                         -- the source object holding the event (0002)
    fingerprint         INTEGER,                      -- of the mirrored values (0002)
    UNIQUE (calendar_id, remote_id)
);
INSERT INTO events_rebuilt SELECT * FROM events;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;
CREATE INDEX events_time ON events(starts_at, ends_at) WHERE deleted_at IS NULL;
CREATE INDEX events_ical_uid ON events(ical_uid);
CREATE INDEX events_meeting ON events(meeting_id);
CREATE INDEX events_resource ON events(calendar_id, resource);
CREATE INDEX events_series ON events(series_uid);
CREATE INDEX events_calendar_time ON events(calendar_id, starts_at) WHERE deleted_at IS NULL;
CREATE INDEX events_organizer_time ON events(organizer_email, starts_at, ends_at) WHERE deleted_at IS NULL;

CREATE TABLE event_attendees_rebuilt (
    event_id  INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    email     TEXT    NOT NULL COLLATE NOCASE,
    name      TEXT,
    role      TEXT    NOT NULL DEFAULT 'required'
                      CHECK (role = 'organizer' OR role = 'required' OR role = 'optional' OR role = 'resource'),
    response  TEXT    NOT NULL DEFAULT 'none'
                      CHECK (response = 'accepted' OR response = 'declined' OR response = 'tentative' OR response = 'none'),
    PRIMARY KEY (event_id, email)
) WITHOUT ROWID;
INSERT INTO event_attendees_rebuilt SELECT * FROM event_attendees;
DROP TABLE event_attendees;
ALTER TABLE event_attendees_rebuilt RENAME TO event_attendees;
CREATE INDEX event_attendees_email ON event_attendees(email);

-- recordings -------------------------------------------------------------------------------

CREATE TABLE recordings_rebuilt (
    id                  INTEGER PRIMARY KEY,
    content_hash        TEXT UNIQUE,                  -- hex SHA-256; NULL when unreadable
    owner_id            INTEGER REFERENCES users(id) ON DELETE SET NULL,
    size                INTEGER NOT NULL DEFAULT 0,
    format              TEXT,
    codec               TEXT,
    duration            REAL,                         -- seconds
    sample_rate         INTEGER,
    channels            INTEGER,
    recorded_at         INTEGER,
    recorded_at_source  TEXT CHECK (recorded_at_source = 'sidecar' OR recorded_at_source = 'container'
                                    OR recorded_at_source = 'file-name' OR recorded_at_source = 'mtime'),
    title               TEXT,
    ical_uid_hint       TEXT,
    event_id_hint       TEXT,
    provider_hint       TEXT,
    sidecar             TEXT,                         -- JSON, unknown keys kept
    transcript          TEXT,
    status              TEXT    NOT NULL DEFAULT 'pending'
                                CHECK (status = 'pending' OR status = 'ready' OR status = 'failed' OR status = 'missing'),
    failure_reason      TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
INSERT INTO recordings_rebuilt SELECT * FROM recordings;
DROP TABLE recordings;
ALTER TABLE recordings_rebuilt RENAME TO recordings;
CREATE INDEX recordings_owner ON recordings(owner_id, recorded_at);
CREATE INDEX recordings_recorded_at ON recordings(recorded_at);
CREATE INDEX recordings_status ON recordings(status);
CREATE TRIGGER recordings_search_update AFTER UPDATE OF title, transcript ON recordings BEGIN
    DELETE FROM recording_search WHERE rowid = old.id;
    INSERT INTO recording_search (rowid, title, transcript, path)
        VALUES (new.id, new.title, new.transcript, (SELECT group_concat(path, ' ') FROM recording_paths WHERE recording_id = new.id));
END;
CREATE TRIGGER recordings_search_delete AFTER DELETE ON recordings BEGIN
    DELETE FROM recording_search WHERE rowid = old.id;
END;

-- links ------------------------------------------------------------------------------------

CREATE TABLE links_rebuilt (
    recording_id         INTEGER PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
    meeting_id           INTEGER REFERENCES meetings(id) ON DELETE SET NULL,
    event_id             INTEGER REFERENCES events(id) ON DELETE SET NULL,
    method               TEXT CHECK (method = 'icaluid' OR method = 'event-id' OR method = 'overlap' OR method = 'manual'),
    score                REAL,
    state                TEXT    NOT NULL
                                 CHECK (state = 'pending' OR state = 'linked' OR state = 'ambiguous'
                                        OR state = 'orphaned' OR state = 'unlinked'),
    is_manual            INTEGER NOT NULL DEFAULT 0 CHECK (is_manual IN (0, 1)),
    candidates           TEXT,                        -- JSON: the close candidates of an ambiguous link
    cached_title         TEXT,
    cached_starts_at     INTEGER,
    cached_ends_at       INTEGER,
    cached_ical_uid      TEXT,
    cached_event_remote_id TEXT,
    validated_at         INTEGER,
    updated_at           INTEGER NOT NULL
);
INSERT INTO links_rebuilt SELECT * FROM links;
DROP TABLE links;
ALTER TABLE links_rebuilt RENAME TO links;
CREATE INDEX links_meeting ON links(meeting_id);
CREATE INDEX links_state ON links(state);

CREATE TABLE link_attendees_rebuilt (
    recording_id  INTEGER NOT NULL REFERENCES links(recording_id) ON DELETE CASCADE,
    email         TEXT    NOT NULL COLLATE NOCASE,
    name          TEXT,
    role          TEXT    NOT NULL DEFAULT 'required'
                          CHECK (role = 'organizer' OR role = 'required' OR role = 'optional' OR role = 'resource'),
    response      TEXT    NOT NULL DEFAULT 'none'
                          CHECK (response = 'accepted' OR response = 'declined' OR response = 'tentative' OR response = 'none'),
    PRIMARY KEY (recording_id, email)
) WITHOUT ROWID;
INSERT INTO link_attendees_rebuilt SELECT * FROM link_attendees;
DROP TABLE link_attendees;
ALTER TABLE link_attendees_rebuilt RENAME TO link_attendees;
CREATE INDEX link_attendees_email ON link_attendees(email);

-- jobs -------------------------------------------------------------------------------------

CREATE TABLE jobs_rebuilt (
    id                INTEGER PRIMARY KEY,
    kind              TEXT    NOT NULL,
    payload           TEXT    NOT NULL DEFAULT '{}',  -- JSON
    state             TEXT    NOT NULL DEFAULT 'queued'
                              CHECK (state = 'queued' OR state = 'running' OR state = 'succeeded'
                                     OR state = 'failed' OR state = 'dead' OR state = 'cancelled'),
    priority          INTEGER NOT NULL DEFAULT 0,     -- higher runs first
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL DEFAULT 5,
    run_at            INTEGER NOT NULL,
    lease_owner       TEXT,
    lease_token       INTEGER,                        -- fencing token of the current claim
    lease_expires_at  INTEGER,
    last_error        TEXT,
    unique_key        TEXT,
    result            TEXT,                           -- JSON
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    finished_at       INTEGER
);
INSERT INTO jobs_rebuilt SELECT * FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;
CREATE UNIQUE INDEX jobs_unique_live ON jobs(unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('queued', 'running', 'failed');
CREATE INDEX jobs_claim ON jobs(priority DESC, run_at) WHERE state IN ('queued', 'failed');
CREATE INDEX jobs_lease ON jobs(lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_state_kind ON jobs(state, kind);
