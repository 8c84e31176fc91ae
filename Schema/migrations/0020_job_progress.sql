-- What a running job last said it is doing ("fetching calendar history: 2 of 5 spans"), for
-- `steno ingest --wait` and `steno jobs show`; cleared when an attempt is claimed.
ALTER TABLE jobs ADD COLUMN progress TEXT;
