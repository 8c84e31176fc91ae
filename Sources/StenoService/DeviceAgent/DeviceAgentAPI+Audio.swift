import Foundation
import StenoCatalog
import StenoCore

extension DeviceAgentAPI {
    /// What `GET /sync/recordings/{id}/audio` found: the open file of a recording the device's
    /// owner may see, or the refusal to send.
    enum AudioLookup: Sendable {
        case file(RecordingFile, Recording)
        case refused(DeviceAgentResponse)
    }

    /// The file of recording `id` for `device`'s owner: 404 for a recording they may not see
    /// (or that does not exist: the two cannot be told apart), 410 for a file gone from the
    /// inbox, 409 for one that changed since it was catalogued (queued to be read again).
    func audio(device: DeviceRecord, recordingID id: Int64) async throws -> AudioLookup {
        guard let inbox else { return .refused(.error(404, "this stenod serves no audio")) }
        let notFound = DeviceAgentResponse.error(404, "no recording \(id)")
        let owner = try await store.user(matching: String(device.ownerID))
        let recording: Recording
        do {
            recording = try await store.recording(id: id, visibleTo: owner.role == .admin ? nil : owner.id)
        } catch StoreError.notFound {
            return .refused(notFound)
        }
        do {
            return .file(try await RecordingFile.open(recording, inbox: inbox, store: store), recording)
        } catch let refusal as RecordingFile.Refusal {
            logger.warning("a device asked for audio that cannot be sent: \(refusal)", metadata: ["recording": "\(id)", "device": "\(device.id)"])
            switch refusal {
            case .gone(let message):
                return .refused(.error(410, message))
            case .changed(let path, _):
                _ = try await queue.enqueue(IngestJobHandler.draft(path: path, priority: JobPriority.interactive))
                return .refused(.error(409, refusal.description))
            }
        }
    }
}
