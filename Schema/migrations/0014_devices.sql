-- Devices: phones running the Steno agent push their Apple Calendar events over HTTPS.
-- Each device has its own `device` calendar account (its calendars and events are mirrored
-- there like any provider's). Only a SHA-256 of its token is kept; revoking clears it.
CREATE TABLE devices (
    id               INTEGER PRIMARY KEY,
    account_id       INTEGER NOT NULL UNIQUE REFERENCES calendar_accounts(id) ON DELETE CASCADE,
    label            TEXT    NOT NULL,
    token_hash       BLOB    UNIQUE,                  -- SHA-256 of the token; NULL once revoked
    time_zone        TEXT    NOT NULL,                -- IANA zone of events sent without one
    created_at       INTEGER NOT NULL,
    last_contact_at  INTEGER,
    last_address     TEXT,
    revoked_at       INTEGER
);

-- One-time pairing codes (`steno devices pair`): a device trades one for a token. Only the
-- code's SHA-256 is kept; a code works once, until it expires.
CREATE TABLE device_pairings (
    code_hash   BLOB    NOT NULL PRIMARY KEY,
    owner_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    label       TEXT,
    time_zone   TEXT,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER
);

-- The change feeds (`GET /sync/…/changes?since=`) read events in the order they changed.
-- Every write of an events row takes the next value of one clock that never goes back: the
-- larger of the time in milliseconds and the last value plus one. Writes are serialised, so
-- a reader that saw value N has seen every change up to N, and a client's `since` means
-- "after the change I saw last" whatever the clocks of the machines involved.
CREATE TABLE change_clock (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    last  INTEGER NOT NULL
);
ALTER TABLE events ADD COLUMN change_seq INTEGER;
-- Rows mirrored before this migration changed before any feed existed: they keep their
-- order, below every later change.
UPDATE events SET change_seq = id;
INSERT INTO change_clock (id, last) VALUES (1, coalesce((SELECT max(id) FROM events), 0));
CREATE INDEX events_change_seq ON events(change_seq);
