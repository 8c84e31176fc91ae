-- Steno catalog, schema 1: users, recordings, calendar accounts and their mirrored events,
-- meetings and attendees, links, and the job queue.
--
-- Conventions:
--   * every instant is INTEGER milliseconds since 1970-01-01T00:00:00Z (UTC);
--   * calendar dates (all-day events) are TEXT 'YYYY-MM-DD';
--   * structured, provider-specific values are TEXT holding JSON;
--   * enumerations are TEXT with a CHECK listing the allowed values.
-- Migrations are applied in file-name order at start-up, each in a transaction, and
-- recorded in grdb_migrations; a database that knows a migration this binary does not is refused.

-- People ---------------------------------------------------------------------------------

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE COLLATE NOCASE,   -- handle and inbox folder name
    display_name  TEXT,
    role          TEXT    NOT NULL DEFAULT 'member' CHECK (role IN ('admin', 'member')),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

CREATE TABLE user_emails (
    email    TEXT    NOT NULL PRIMARY KEY COLLATE NOCASE,
    user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX user_emails_user ON user_emails(user_id);

CREATE TABLE user_uids (
    uid      INTEGER NOT NULL PRIMARY KEY CHECK (uid >= 0),
    user_id  INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX user_uids_user ON user_uids(user_id);

-- Calendars -------------------------------------------------------------------------------

CREATE TABLE calendar_accounts (
    id               INTEGER PRIMARY KEY,
    provider         TEXT    NOT NULL CHECK (provider IN ('graph', 'caldav', 'ics', 'device')),
    owner_id         INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    display_name     TEXT    NOT NULL,
    settings         TEXT    NOT NULL DEFAULT '{}',   -- JSON: URL, user name, tenant… (no secrets)
    secret           BLOB,                            -- AES-GCM sealed credentials
    sync_state       TEXT,                            -- JSON: delta link, sync token, ctag
    capabilities     TEXT,                            -- JSON: probed once (sync-collection, expand…)
    health           TEXT    NOT NULL DEFAULT 'ok'
                             CHECK (health IN ('ok', 'failing', 'needs-credentials', 'disabled')),
    last_success_at  INTEGER,
    last_error       TEXT,
    last_error_at    INTEGER,
    next_sync_at     INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX calendar_accounts_owner ON calendar_accounts(owner_id);

CREATE TABLE calendars (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES calendar_accounts(id) ON DELETE CASCADE,
    remote_id   TEXT    NOT NULL,                     -- Graph id, CalDAV href, file path
    name        TEXT    NOT NULL,
    color       TEXT,
    time_zone   TEXT,                                 -- IANA name
    sync_state  TEXT,                                 -- JSON: per-calendar token / ctag
    is_enabled  INTEGER NOT NULL DEFAULT 1 CHECK (is_enabled IN (0, 1)),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (account_id, remote_id)
);

-- A real-world meeting: all events sharing one occurrence identity.
CREATE TABLE meetings (
    id          INTEGER PRIMARY KEY,
    identity    TEXT    NOT NULL UNIQUE,              -- occurrence iCalUId, or UID + RECURRENCE-ID
    title       TEXT    NOT NULL DEFAULT '',
    starts_at   INTEGER,
    ends_at     INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX meetings_start ON meetings(starts_at);

-- One occurrence as a provider reports it.
CREATE TABLE events (
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
                                CHECK (status IN ('confirmed', 'tentative', 'cancelled')),
    organizer_email     TEXT COLLATE NOCASE,
    organizer_name      TEXT,
    location            TEXT,
    online_meeting_url  TEXT,
    web_link            TEXT,
    etag                TEXT,                         -- ETag or Graph changeKey
    deleted_at          INTEGER,                      -- tombstone
    updated_at          INTEGER NOT NULL,
    UNIQUE (calendar_id, remote_id)
);
CREATE INDEX events_time ON events(starts_at, ends_at) WHERE deleted_at IS NULL;
CREATE INDEX events_ical_uid ON events(ical_uid);
CREATE INDEX events_meeting ON events(meeting_id);

CREATE TABLE event_attendees (
    event_id  INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    email     TEXT    NOT NULL COLLATE NOCASE,
    name      TEXT,
    role      TEXT    NOT NULL DEFAULT 'required'
                      CHECK (role IN ('organizer', 'required', 'optional', 'resource')),
    response  TEXT    NOT NULL DEFAULT 'none'
                      CHECK (response IN ('accepted', 'declined', 'tentative', 'none')),
    PRIMARY KEY (event_id, email)
) WITHOUT ROWID;
CREATE INDEX event_attendees_email ON event_attendees(email);

-- Recordings ------------------------------------------------------------------------------

CREATE TABLE recordings (
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
    recorded_at_source  TEXT CHECK (recorded_at_source IN ('sidecar', 'container', 'file-name', 'mtime')),
    title               TEXT,
    ical_uid_hint       TEXT,
    event_id_hint       TEXT,
    provider_hint       TEXT,
    sidecar             TEXT,                         -- JSON, unknown keys kept
    transcript          TEXT,
    status              TEXT    NOT NULL DEFAULT 'pending'
                                CHECK (status IN ('pending', 'ready', 'failed', 'missing')),
    failure_reason      TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX recordings_owner ON recordings(owner_id, recorded_at);
CREATE INDEX recordings_recorded_at ON recordings(recorded_at);
CREATE INDEX recordings_status ON recordings(status);

CREATE TABLE recording_paths (
    path           TEXT    NOT NULL PRIMARY KEY,      -- relative to the inbox
    recording_id   INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
    size           INTEGER,
    mtime          INTEGER,
    is_present     INTEGER NOT NULL DEFAULT 1 CHECK (is_present IN (0, 1)),
    first_seen_at  INTEGER NOT NULL,
    last_seen_at   INTEGER NOT NULL
);
CREATE INDEX recording_paths_recording ON recording_paths(recording_id);

-- Links -----------------------------------------------------------------------------------

CREATE TABLE links (
    recording_id         INTEGER PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
    meeting_id           INTEGER REFERENCES meetings(id) ON DELETE SET NULL,
    event_id             INTEGER REFERENCES events(id) ON DELETE SET NULL,
    method               TEXT CHECK (method IN ('icaluid', 'event-id', 'overlap', 'manual')),
    score                REAL,
    state                TEXT    NOT NULL
                                 CHECK (state IN ('pending', 'linked', 'ambiguous', 'orphaned', 'unlinked')),
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
CREATE INDEX links_meeting ON links(meeting_id);
CREATE INDEX links_state ON links(state);

-- Attendees as they were when the link was made or last refreshed; kept when the event goes.
CREATE TABLE link_attendees (
    recording_id  INTEGER NOT NULL REFERENCES links(recording_id) ON DELETE CASCADE,
    email         TEXT    NOT NULL COLLATE NOCASE,
    name          TEXT,
    role          TEXT    NOT NULL DEFAULT 'required'
                          CHECK (role IN ('organizer', 'required', 'optional', 'resource')),
    response      TEXT    NOT NULL DEFAULT 'none'
                          CHECK (response IN ('accepted', 'declined', 'tentative', 'none')),
    PRIMARY KEY (recording_id, email)
) WITHOUT ROWID;
CREATE INDEX link_attendees_email ON link_attendees(email);

CREATE TABLE link_history (
    id               INTEGER PRIMARY KEY,
    recording_id     INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
    at               INTEGER NOT NULL,
    actor            TEXT    NOT NULL,                -- 'linker', 'revalidation', or a user name
    action           TEXT    NOT NULL,                -- 'linked', 'relinked', 'orphaned', 'refreshed', …
    from_state       TEXT,
    to_state         TEXT,
    from_meeting_id  INTEGER,
    to_meeting_id    INTEGER,
    method           TEXT,
    score            REAL,
    reason           TEXT
);
CREATE INDEX link_history_recording ON link_history(recording_id, at);

-- Jobs ------------------------------------------------------------------------------------

CREATE TABLE jobs (
    id                INTEGER PRIMARY KEY,
    kind              TEXT    NOT NULL,
    payload           TEXT    NOT NULL DEFAULT '{}',  -- JSON
    state             TEXT    NOT NULL DEFAULT 'queued'
                              CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'dead', 'cancelled')),
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
-- At most one live job per unique key (e.g. 'ingest:alice/standup.m4a').
CREATE UNIQUE INDEX jobs_unique_live ON jobs(unique_key)
    WHERE unique_key IS NOT NULL AND state IN ('queued', 'running', 'failed');
CREATE INDEX jobs_claim ON jobs(priority DESC, run_at) WHERE state IN ('queued', 'failed');
CREATE INDEX jobs_lease ON jobs(lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_state_kind ON jobs(state, kind);
