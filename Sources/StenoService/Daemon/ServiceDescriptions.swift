/// The daemon's services name themselves in the lifecycle library's log lines.
///
/// ServiceLifecycle logs each service with `"\(service)"` at debug level, several times per
/// start and stop; the default description walks the whole object graph behind a service
/// (the store, the handlers, the secrets key) and put every field of it in the log.
extension JobWorkerPool: CustomStringConvertible {
    public var description: String { "JobWorkerPool" }
}

extension JobScheduler: CustomStringConvertible {
    public var description: String { "JobScheduler" }
}

extension RPCServer: CustomStringConvertible {
    public var description: String { "RPCServer" }
}

extension InboxWatcher: CustomStringConvertible {
    var description: String { "InboxWatcher" }
}

extension CalendarSyncScheduler: CustomStringConvertible {
    var description: String { "CalendarSyncScheduler" }
}

extension DeviceAgentServer: CustomStringConvertible {
    var description: String { "DeviceAgentServer" }
}
