-- `meetings --title TEXT` with a text many titles hold walks the meetings by start testing each
-- title (the trigram index only helps a rare text): at a million meetings a text held by one
-- title in a hundred walks ten thousand rows for a page of a hundred, and looking each up in
-- the table cost most of the page. The start index now holds the titles, so the walk reads
-- only the index; `id` is a column of it so that it still gives the listings' order
-- (start, id) with the title after it.
DROP INDEX meetings_start;
CREATE INDEX meetings_start ON meetings(starts_at, id, title);
