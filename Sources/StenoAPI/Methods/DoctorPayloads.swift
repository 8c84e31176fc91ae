import Foundation

extension StenoMethods {
    /// The daemon's own checks of its machine (admins): secrets key, data folder, disk space,
    /// socket, inbox and its folders, dead jobs. Each problem comes with the fix.
    public static let systemDoctor = RPCMethodDescriptor<NoParams, DoctorReport>("system.doctor")
}

/// What `system.doctor` (or `steno doctor`) found.
public struct DoctorReport: Codable, Sendable, Hashable {
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) { self.checks = checks }

    /// The checks that found something wrong.
    public var problems: [DoctorCheck] { checks.filter { $0.status == .problem } }
}

/// One check: what was looked at, how it stands, and for a problem, what to do.
public struct DoctorCheck: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, Hashable {
        case ok
        case problem
    }

    /// What was checked: `secret key`, `disk space`, `inbox`, `account 3`, ….
    public var name: String
    public var status: Status
    /// What was found.
    public var detail: String
    /// For a problem: the command or change that fixes it.
    public var fix: String?

    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = fix
    }

    public static func ok(_ name: String, _ detail: String) -> DoctorCheck { DoctorCheck(name: name, status: .ok, detail: detail) }

    public static func problem(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .problem, detail: detail, fix: fix)
    }
}
