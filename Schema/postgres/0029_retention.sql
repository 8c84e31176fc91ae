-- A legal hold exempts a recording from deletion and from every automatic removal (the
-- retention run, the purge of missing recordings) until an admin lifts it.
CREATE TABLE recording_holds (
    recording_id  BIGINT  PRIMARY KEY REFERENCES recordings(id) ON DELETE CASCADE,
    held_at       BIGINT  NOT NULL,
    held_by       TEXT    NOT NULL,
    reason        TEXT
);

-- Where a marked recording's files go instead of being removed (an absolute folder outside the
-- inbox, `[retention] archive_dir`); NULL removes them. Kept with the mark, so a deletion
-- resumed after a crash moves them where the run that marked them meant to.
ALTER TABLE recording_deletions ADD COLUMN archive_dir TEXT;
