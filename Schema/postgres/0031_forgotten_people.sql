-- The people an admin erased (`steno people forget`), each by the SHA-256 of their address and
-- never the address itself: a later sync that brings one back as an organizer or attendee
-- stores a redacted entry in its place, so the person stays forgotten.
CREATE TABLE forgotten_people (
    key           TEXT    NOT NULL PRIMARY KEY,         -- hex SHA-256 of the lowercased address
    forgotten_at  BIGINT  NOT NULL
);
