import ArgumentParser
import Foundation
import StenoAPI
import StenoCore

/// `steno devices …`: phones running the Steno agent, which push their Apple calendars to
/// stenod's device agent listener with a token of their own.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Pair, list and revoke devices (iPhones) that push their Apple calendars to Steno.",
        discussion: """
            A device is an iPhone running an app built on Steno's agent library: it reads the \
            phone's calendars and sends them to stenod's device agent listener ([device_agent] in \
            stenod.toml) with a token of its own. Each device is a `device` calendar account of \
            the person who added it.

            Examples:
              steno devices pair --label my-iphone   # a code to type on the phone
              steno devices add --label my-iphone    # a token, shown once
              steno devices                          # devices with their last contact
              steno devices revoke 3                 # its token stops working
            """,
        subcommands: [List.self, Add.self, Pair.self, Revoke.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List devices with their last contact and event counts (members: their own; admins: all).",
            discussion: """
                Examples:
                  steno devices
                  steno devices list --json
                """)
        @OptionGroup var global: GlobalOptions
        @OptionGroup var list: ListOptions

        func run() throws {
            try reportingFailures {
                let (devices, more, isAdmin) = try global.withClient { client in
                    let (devices, more) = try list.collect { cursor, size in
                        try client.send(StenoMethods.devicesList, PageParams(cursor: cursor, limit: size))
                    }
                    // Members see only their own devices: an OWNER column would repeat their name.
                    let isAdmin = try client.call(StenoMethods.systemStatus).caller.role == .admin
                    return (devices, more, isAdmin)
                }
                Output.print(Output.json(devices), table: DevicesCommand.table(devices, showingOwner: isAdmin), format: global.format)
                Output.moreHint(more, "devices")
                if global.format.isHuman && devices.isEmpty {
                    Output.say("no devices yet; pair one with: steno devices pair --label NAME")
                }
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a device and print its token, once.",
            discussion: """
                The token is printed this once: stenod keeps only its SHA-256. Enter it in the app \
                on the device together with the address at which the device reaches stenod's device \
                agent. To avoid copying a long token onto a phone, use `steno devices pair` instead.

                Examples:
                  steno devices add --label my-iphone
                  steno devices add --label work-phone --time-zone America/New_York
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "A name for the device, e.g. my-iphone.") var label: String
        @Option(name: .customLong("time-zone"), help: "The IANA zone of events the device sends without one (default: the daemon's).")
        var timeZone: String?

        func run() throws {
            try reportingFailures {
                try DevicesCommand.introduce(
                    StenoMethods.devicesAdd, DeviceAddParams(label: label, timeZone: timeZone), entering: "this token", global: global
                ) { added in
                    let device = added.device
                    return """
                        added device \(device.id) "\(device.label)" for \(device.owner) (time zone \(device.timeZone))

                            \(added.token)

                        Store this token now: it is not shown again (stenod keeps only its SHA-256).
                        """
                }
            }
        }
    }

    struct Pair: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Print a one-time code that a device trades for its token (10 minutes, one use).",
            discussion: """
                On the phone, the app sends the code to POST /sync/devices/register and receives \
                its token: nobody copies a token by hand. The label and time zone given here win over \
                the device's; without them the device names itself and the zone is the daemon's.

                Examples:
                  steno devices pair --label my-iphone
                  steno devices pair --time-zone Europe/Berlin
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "A name for the device (default: the name the device sends).") var label: String?
        @Option(name: .customLong("time-zone"), help: "The IANA zone of events the device sends without one (default: the daemon's).")
        var timeZone: String?

        func run() throws {
            try reportingFailures {
                try DevicesCommand.introduce(
                    StenoMethods.devicesPair, DeviceAddParams(label: label, timeZone: timeZone), entering: "the code", global: global
                ) { pairing in
                    let named = pairing.label.map { " for \"\($0)\"" } ?? ""
                    let zone = pairing.timeZone.map { " (time zone \($0))" } ?? ""
                    let left = DevicesCommand.relative(pairing.expiresAt, now: Date())
                    return """
                        pairing code\(named)\(zone):

                        \(DevicesCommand.boxed(pairing.code))

                        valid until \(Output.date(pairing.expiresAt)) (\(left)), for one device.
                        On the phone, enter this code in the Steno app (letter case, dashes and spaces do not matter).
                        """
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a device's token (its owner or an admin); the events it sent stay mirrored.",
            discussion: """
                The device's next request gets 401, like any unknown token. To remove its events as \
                well, remove its account: steno accounts remove ACCOUNT (the "account" of \
                steno devices --json).

                Examples:
                  steno devices revoke 3
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The device's id (steno devices).") var id: Int64

        func run() throws {
            try reportingFailures {
                let revoked = try global.withClient { try $0.call(StenoMethods.devicesRevoke, DeviceIDParams(id: id)) }
                Output.done(
                    revoked, "revoked device \(revoked.id) (\(revoked.label)); its \(revoked.events) mirrored events stay",
                    format: global.format)
            }
        }
    }

    /// Calls `devices.add` or `devices.pair`, then shows the answer: its JSON for programs;
    /// for people, `describe`'s sentences and what to do next on the device.
    static func introduce<Result>(
        _ method: RPCMethodDescriptor<DeviceAddParams, Result>, _ params: DeviceAddParams, entering what: String, global: GlobalOptions,
        describe: (Result) -> String
    ) throws {
        let (result, listener) = try global.withClient { client in
            let result = try client.call(method, params)
            // Only for the hint: a daemon that cannot say where it listens still added the device.
            return (result, try? client.call(StenoMethods.systemStatus).deviceAgent)
        }
        guard global.format.isHuman else {
            Output.print(Output.json(result), table: TableWriter([]), format: global.format)
            return
        }
        Output.say(describe(result))
        Output.say(nextStep(listener: listener, entering: what))
    }

    static func table(_ devices: [DeviceSummary], showingOwner: Bool, now: Date = Date()) -> TableWriter {
        var columns = ["ID", "LABEL", "OWNER", "TIME ZONE", "LAST CONTACT", "EVENTS", "STATE"]
        if !showingOwner { columns.removeAll { $0 == "OWNER" } }
        var table = TableWriter(columns)
        for device in devices {
            let lastContact = device.lastContactAt.map { "\(relative($0, now: now)) (\(Output.date($0)))" } ?? "never"
            var row = [
                String(device.id), device.label, device.owner, device.timeZone, lastContact, String(device.events),
                device.revokedAt == nil ? "ok" : "revoked",
            ]
            if !showingOwner { row.remove(at: 2) }
            table.add(row)
        }
        return table
    }

    /// What to do on the device, and where it reaches stenod (`listener`: `system.status`'s
    /// `deviceAgent`, nil when the listener is off).
    static func nextStep(listener: String?, entering what: String) -> String {
        guard let listener else {
            return """
                Next: the device agent listener is off in this stenod. Set [device_agent] listen in stenod.toml
                (see the README, "Apple Calendar device agent"), restart stenod, then enter \(what) on the device.
                """
        }
        // A listener on a Unix socket is reachable only through the reverse proxy.
        let address =
            listener.contains("unix:")
            ? "the reverse proxy's address (e.g. https://steno.example.com)"
            : "the address at which the phone reaches this server\n(the reverse proxy's, e.g. https://steno.example.com, or this host's with the listener's port)"
        return "Next: in the Steno app, enter \(what) and \(address).\nstenod's device agent listens at \(listener)."
    }

    /// A pairing code in a box, indented, so that it stands out from the sentences around it.
    static func boxed(_ code: String) -> String {
        let rule = String(repeating: "─", count: TerminalText.displayWidth(code) + 2)
        return "    ┌\(rule)┐\n    │ \(code) │\n    └\(rule)┘"
    }

    /// How long ago (or from now) `date` is, roughly: `just now`, `5m ago`, `in 10m`, `3h ago`, `2d ago`.
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        // Rounded to the nearest unit: a code valid for 599 more seconds reads "in 10m".
        let magnitude = Int(abs(seconds).rounded())
        guard magnitude >= 60 else { return seconds < 0 ? "just now" : "in under a minute" }
        let amount: String
        switch magnitude {
        case ..<3570: amount = "\((magnitude + 30) / 60)m"
        case ..<84_600: amount = "\((magnitude + 1800) / 3600)h"
        default: amount = "\((magnitude + 43_200) / 86_400)d"
        }
        return seconds < 0 ? "\(amount) ago" : "in \(amount)"
    }
}
