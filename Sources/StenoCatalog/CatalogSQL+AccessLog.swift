extension CatalogSQL {
    /// Writes the access log's entries: one per recording of `recordingIDs` (a subquery whose
    /// column is `id`), with the owner the catalog has now, or one without a
    /// recording when `none` is true.
    package static func logAccess(at: String, action: String, actor: String, uid: String, detail: String, recordingIDs: String, none: String) -> String {
        """
        INSERT INTO access_log (at, action, recording_id, owner, actor, uid, detail)
        SELECT \(at), \(action), wanted.id, CAST(u.name AS TEXT), \(actor), \(uid), \(detail)
        FROM (\(recordingIDs)) AS wanted
        LEFT JOIN recordings r ON r.id = wanted.id LEFT JOIN users u ON u.id = r.owner_id
        UNION ALL SELECT \(at), \(action), NULL, NULL, \(actor), \(uid), \(detail) WHERE \(none)
        """
    }

    /// The access log newest first; each filter is a placeholder that is NULL when unused.
    /// Columns: id, at, action, recording, owner, actor, uid, detail.
    package static func accessLog(recording: String, actor: String, owner: String, since: String, beforeID: String, limit: String) -> String {
        """
        SELECT id, at, action, recording_id, owner, actor, uid, detail FROM access_log
        WHERE (\(recording) IS NULL OR recording_id = \(recording)) AND (\(actor) IS NULL OR actor = \(actor))
          AND (\(owner) IS NULL OR owner = \(owner)) AND (\(since) IS NULL OR at >= \(since))
          AND (\(beforeID) IS NULL OR id < \(beforeID))
        ORDER BY id DESC LIMIT \(limit)
        """
    }
}
