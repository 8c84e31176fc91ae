-- Named leases: work that one daemon at a time may do (watching an inbox). The holder renews
-- its lease while it works; when it dies, the lease runs out and another daemon takes it.
CREATE TABLE leases (
    name        TEXT     NOT NULL PRIMARY KEY,            -- e.g. inbox:/srv/steno/inbox
    holder      TEXT     NOT NULL,                        -- host/pid of the daemon holding it
    expires_at  INTEGER  NOT NULL                         -- ms since 1970
) WITHOUT ROWID;
