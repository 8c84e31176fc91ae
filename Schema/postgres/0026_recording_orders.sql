-- `steno recordings` lists the newest recordings first, and sorts by when they were catalogued
-- or by their length. A page continues after the last row's key and id, so each order has an
-- index on exactly the key the listings compute (a recording without a start time by when it
-- was catalogued, one without a length as zero), its id after it for the ties: every page
-- reads its rows from its position instead of sorting every recording again.
CREATE INDEX recordings_recorded_order ON recordings ((COALESCE(recorded_at, created_at)), id);
CREATE INDEX recordings_created ON recordings(created_at, id);
CREATE INDEX recordings_length ON recordings ((COALESCE(duration, 0)), id);
