-- Who did what to which recording: each open (to play or export it), deletion, purge,
-- retention removal, hold and forgotten content, kept [retention] audit_days. It names the
-- recording by id with its owner then (no title, no transcript, no attendee), and has no
-- foreign key: an entry outlives the recording it tells of. No index on `at`: the nightly prune
-- reads the table once, while an index would cost each of the thousands of rows a retention
-- run writes.
CREATE TABLE access_log (
    id            INTEGER PRIMARY KEY,
    at            INTEGER NOT NULL,
    action        TEXT    NOT NULL,
    recording_id  INTEGER,
    owner         TEXT,                                 -- the recording's owner's name then
    actor         TEXT    NOT NULL,                     -- a user name, 'uid N', or 'retention'
    uid           INTEGER,                              -- the caller's Unix uid
    detail        TEXT
);
CREATE INDEX access_log_recording ON access_log(recording_id, id);
CREATE INDEX access_log_owner ON access_log(owner, id);
