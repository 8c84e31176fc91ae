-- Device sign-ins in progress, so that any daemon sharing the catalog can report on one and
-- finish it. The device code is inside sealed_request (sealed with the secrets key); the
-- daemon polling the token endpoint holds the lease `device-sign-in:<id>`.
CREATE TABLE device_sign_ins (
    id              TEXT     NOT NULL PRIMARY KEY,        -- random, what clients poll with
    owner_id        INTEGER  NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sealed_request  BLOB     NOT NULL,
    created_at      INTEGER  NOT NULL,                    -- ms since 1970
    expires_at      INTEGER  NOT NULL,                    -- when the device code expires
    state           TEXT     NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
    account_id      INTEGER,                              -- succeeded: the account stored
    job_id          INTEGER,                              -- succeeded: its first sync
    message         TEXT,                                 -- failed: why
    finished_at     INTEGER
) WITHOUT ROWID;
