-- Microsoft Graph calendars no longer keep per-event change keys in calendar_resources
-- (their delta token says what changed; nothing compared them): the rows they left go.
DELETE FROM calendar_resources WHERE calendar_id IN (
    SELECT c.id FROM calendars c JOIN calendar_accounts a ON a.id = c.account_id WHERE a.provider = 'graph');
