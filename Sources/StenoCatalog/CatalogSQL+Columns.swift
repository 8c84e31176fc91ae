import StenoCore

extension CatalogSQL {
    package static let accountColumns = """
        id, provider, owner_id, display_name, settings, secret IS NOT NULL AS has_secret, sync_state, capabilities,
        health, last_success_at, last_error, last_error_at, next_sync_at, created_at
        """

    package static let deviceSelect = """
        SELECT d.id, d.account_id, a.owner_id, u.name AS owner_name, d.label, d.time_zone, d.created_at, d.last_contact_at,
            d.last_address, d.revoked_at,
            (SELECT count(*) FROM calendars c WHERE c.account_id = d.account_id) AS calendar_count,
            (SELECT count(*) FROM events e JOIN calendars c ON c.id = e.calendar_id
             WHERE c.account_id = d.account_id AND e.deleted_at IS NULL
                AND e.remote_id NOT LIKE '\(DeviceEventKeys.requestPrefix)%') AS event_count
        FROM devices d JOIN calendar_accounts a ON a.id = d.account_id JOIN users u ON u.id = a.owner_id
        """
}
