-- Deleting a recording is three steps that a crash may part: the recording is marked, its
-- files (when asked) are removed from the inbox, then its rows go. A mark outlives a restart,
-- so the deletion job finishes what it started; it goes with the recording's row.
CREATE TABLE recording_deletions (
    recording_id  INTEGER PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
    requested_at  INTEGER NOT NULL,
    requested_by  TEXT    NOT NULL,                     -- a user name, or 'retention'
    with_files    INTEGER NOT NULL DEFAULT 0 CHECK (with_files IN (0, 1))
);

-- The content of deleted recordings, by hash alone (no title, no name): the same bytes
-- dropped into the inbox again are not catalogued again, until the hash is forgotten.
CREATE TABLE deleted_contents (
    content_hash  TEXT    PRIMARY KEY,
    deleted_at    INTEGER NOT NULL,
    deleted_by    TEXT    NOT NULL
) WITHOUT ROWID;
