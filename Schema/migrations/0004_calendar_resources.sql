-- One row per mirrored remote resource (CalDAV href, ICS file/UID, Graph event id) with its
-- ETag, whether or not it has occurrences in the mirrored window: a series that ended long
-- ago or an event far in the future is then compared by ETag like any other, instead of
-- being fetched again on every sync that lists ETags.
CREATE TABLE calendar_resources (
    calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
    resource    TEXT    NOT NULL,
    etag        TEXT,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (calendar_id, resource)
) WITHOUT ROWID;

-- Rows mirrored before 0002 have no resource: they were keyed by their remote id.
UPDATE events SET resource = remote_id WHERE resource IS NULL;

INSERT INTO calendar_resources (calendar_id, resource, etag, updated_at)
SELECT calendar_id, resource, max(etag), max(updated_at) FROM events
WHERE deleted_at IS NULL
GROUP BY calendar_id, resource;
