import StenoCore

/// Every JSON-RPC method Steno's daemon serves. `Schema/openrpc.json` documents each one;
/// a test checks that the two lists agree.
public enum StenoMethods {
    // MARK: system.*

    /// The daemon's version. Allowed for every caller, known or not.
    public static let systemVersion = RPCMethodDescriptor<NoParams, VersionInfo>("system.version")
    /// Uptime, schema version, database path, row counts, queue depth, and who the caller is.
    public static let systemStatus = RPCMethodDescriptor<NoParams, SystemStatus>("system.status")

    // MARK: users.* (admin)

    /// Adds a user.
    public static let usersAdd = RPCMethodDescriptor<UserAddParams, User>("users.add")
    /// Lists users, a page at a time.
    public static let usersList = RPCMethodDescriptor<PageParams, Page<User>>("users.list")
    /// Changes a user's name, emails, uids or role.
    public static let usersUpdate = RPCMethodDescriptor<UserUpdateParams, User>("users.update")
    /// Removes a user.
    public static let usersRemove = RPCMethodDescriptor<UserReferenceParams, User>("users.remove")

    // MARK: admin.*

    /// Writes a consistent online copy of the catalog to a file on the daemon's machine.
    public static let adminBackup = RPCMethodDescriptor<BackupParams, BackupResult>("admin.backup")

    // MARK: rpc.*

    /// The OpenRPC document describing every method (`Schema/openrpc.json`).
    public static let rpcDiscover = "rpc.discover"

    /// The names of every method, for the schema test and `rpc.discover` checks.
    public static let allNames: [String] = [
        systemVersion.name, systemStatus.name, systemDoctor.name, systemSubscribe.name,
        usersAdd.name, usersList.name, usersUpdate.name, usersRemove.name,
        adminBackup.name,
        jobsList.name, jobsGet.name, jobsRetry.name, jobsCancel.name, jobsEnqueue.name,
        recordingsList.name, recordingsGet.name, recordingsIngest.name, recordingsOpen.name, recordingsDelete.name, recordingsForgetContent.name, recordingsPurge.name,
        recordingsHold.name, recordingsUnhold.name, recordingsHolds.name, retentionPreview.name, auditList.name,
        peopleShow.name, peopleForget.name,
        accountsAdd.name, accountsList.name, accountsUpdate.name, accountsRemove.name, accountsSync.name, calendarsList.name,
        calendarsEnable.name, calendarsDisable.name,
        accountsSignIn.name, accountsSignInStatus.name, accountsSignInList.name,
        devicesAdd.name, devicesList.name, devicesRevoke.name, devicesPair.name,
        meetingsList.name, meetingsGet.name, attendeesList.name, searchQuery.name, meetingsCreate.name, meetingsRename.name,
        recordingsExplain.name, linksList.name, linksHistory.name, linksSet.name, linksRemove.name, linksReset.name, linksRevalidate.name,
        rpcDiscover,
    ]
}
