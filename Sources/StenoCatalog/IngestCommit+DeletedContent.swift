extension IngestCommit {
    /// The content hashes of the files the commit records, for the store to look up among
    /// deleted contents in the transaction that writes it.
    package var recordedContentHashes: [String] {
        var hashes = Set<String>()
        for job in jobs {
            for file in job.files {
                if case .record(let record) = file.action, let hash = record.contentHash { hashes.insert(hash) }
            }
        }
        return hashes.sorted()
    }

    /// The commit with every file whose content was deleted ignored, saying why: a recording
    /// that was deleted is not catalogued again from the same bytes (a copy left in the inbox,
    /// the file dropped again) until its content is forgotten.
    package func ignoringDeletedContents(_ deleted: [String: DeletedContent]) -> IngestCommit {
        guard !deleted.isEmpty else { return self }
        var commit = self
        for jobIndex in commit.jobs.indices {
            for fileIndex in commit.jobs[jobIndex].files.indices {
                guard case .record(let record) = commit.jobs[jobIndex].files[fileIndex].action,
                    let hash = record.contentHash, let deletion = deleted[hash]
                else { continue }
                commit.jobs[jobIndex].files[fileIndex].action = .ignore(reason: deletion.ignoredReason)
            }
        }
        return commit
    }
}
