-- Readings worth a person's attention that did not stop a recording being catalogued
-- ("truncated: header says 11.2 s, data holds 6.7 s", a sidecar whose length disagrees with
-- the file's): a JSON array of sentences, NULL when there are none, so that listing the
-- recordings with warnings is `warnings IS NOT NULL`.
ALTER TABLE recordings ADD COLUMN warnings TEXT CHECK (warnings IS NULL OR json_valid(warnings));
