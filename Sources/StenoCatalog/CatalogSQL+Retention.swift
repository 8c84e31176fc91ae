extension CatalogSQL {
    /// The recordings a retention run weighs, each with its owner's name and its age (made,
    /// else catalogued): aged before `cutoff`, after `afterID`, neither held nor marked for
    /// deletion, ascending by id, at most `limit`. Columns: id, owner name, aged from, title.
    package static func retentionCandidates(agedBefore cutoff: String, afterID: String, limit: String) -> String {
        """
        SELECT r.id, CAST(u.name AS TEXT) AS owner_name, COALESCE(r.recorded_at, r.created_at) AS aged_from, r.title
        FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
        WHERE COALESCE(r.recorded_at, r.created_at) < \(cutoff) AND r.id > \(afterID)
          AND NOT EXISTS (SELECT 1 FROM recording_deletions d WHERE d.recording_id = r.id)
          AND NOT EXISTS (SELECT 1 FROM recording_holds h WHERE h.recording_id = r.id)
        ORDER BY r.id LIMIT \(limit)
        """
    }

    /// The holds on the recordings of `ids` (every hold when `all` is true), ascending by
    /// recording. Columns: recording, held at, held by, reason.
    package static func holds(all: String, ids: String) -> String {
        """
        SELECT recording_id, held_at, held_by, reason FROM recording_holds
        WHERE \(all) OR recording_id IN (\(ids)) ORDER BY recording_id
        """
    }
}
