-- An event's resource and series UID are stored only where they differ from its remote id
-- and iCalUID. They almost never do (a Graph event is its own resource; a single event is its
-- own series), yet each was a second index entry per mirrored event, keyed on long, random
-- identifiers: about a tenth of a full sync's store time. Readers take
-- coalesce(resource, remote_id) and coalesce(series_uid, ical_uid).
UPDATE events SET resource = NULL WHERE resource = remote_id;
UPDATE events SET series_uid = NULL WHERE series_uid = ical_uid;
DROP INDEX events_resource;
CREATE INDEX events_resource ON events(calendar_id, resource) WHERE resource IS NOT NULL;
DROP INDEX events_series;
CREATE INDEX events_series ON events(series_uid) WHERE series_uid IS NOT NULL;
