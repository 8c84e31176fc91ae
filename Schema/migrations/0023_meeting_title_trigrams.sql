-- `meetings --title TEXT` finds a rare title's meetings through the trigrams of the titles
-- instead of testing every meeting (a title nothing matches walked a million). The index only
-- proposes candidates: each is still tested with the same LIKE, so the answers do not change.
-- External content: the titles stay in `meetings`, kept in step by triggers.
CREATE VIRTUAL TABLE meeting_titles USING fts5(title, content = 'meetings', content_rowid = 'id', tokenize = 'trigram');

CREATE TRIGGER meetings_titles_insert AFTER INSERT ON meetings BEGIN
    INSERT INTO meeting_titles (rowid, title) VALUES (new.id, new.title);
END;
-- The mirror's upsert sets every meeting's title again: only a changed one is re-indexed.
CREATE TRIGGER meetings_titles_update AFTER UPDATE OF title ON meetings WHEN old.title IS NOT new.title BEGIN
    INSERT INTO meeting_titles (meeting_titles, rowid, title) VALUES ('delete', old.id, old.title);
    INSERT INTO meeting_titles (rowid, title) VALUES (new.id, new.title);
END;
CREATE TRIGGER meetings_titles_delete AFTER DELETE ON meetings BEGIN
    INSERT INTO meeting_titles (meeting_titles, rowid, title) VALUES ('delete', old.id, old.title);
END;

INSERT INTO meeting_titles (meeting_titles) VALUES ('rebuild');
