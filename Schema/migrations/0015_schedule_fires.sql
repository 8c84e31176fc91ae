-- The fire times of cron schedules that enqueued a job. Several daemons sharing one queue each
-- see every fire time; the one that records it first enqueues, the others skip it, so a
-- schedule fires once per fire time however many daemons run it.
CREATE TABLE schedule_fires (
    schedule  TEXT     NOT NULL,                          -- the schedule's unique key, schedule:<kind>
    fire_at   INTEGER  NOT NULL,                          -- the fire time, ms since 1970
    PRIMARY KEY (schedule, fire_at)
) WITHOUT ROWID;
