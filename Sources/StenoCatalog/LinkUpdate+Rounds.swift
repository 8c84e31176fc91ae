extension LinkUpdate {
    /// Splits updates into rounds in which every recording appears once, keeping their order.
    package static func rounds(_ updates: [LinkUpdate]) -> [[LinkUpdate]] {
        var rounds: [[LinkUpdate]] = []
        var seen: [Set<Int64>] = []
        for update in updates {
            // After the last round that already holds this recording.
            let index = (seen.lastIndex { $0.contains(update.recordingID) } ?? -1) + 1
            if index == rounds.count {
                rounds.append([])
                seen.append([])
            }
            rounds[index].append(update)
            seen[index].insert(update.recordingID)
        }
        return rounds
    }
}
