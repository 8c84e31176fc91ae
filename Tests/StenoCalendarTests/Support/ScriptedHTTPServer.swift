#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoTesting

/// A scripted HTTP server on 127.0.0.1 (a small Python program) for the server behaviours
/// Radicale does not have: truncated sync-collection results (507), rate limits, OAuth
/// bearer tokens. Answers each request with the first rule that matches and is not used up,
/// and records every request.
final class ScriptedHTTPServer: @unchecked Sendable {
    /// One scripted answer.
    struct Rule: Encodable {
        var method: String
        var path: String
        /// A substring the request body must contain.
        var bodyContains: String?
        /// The exact Authorization header required.
        var authorization: String?
        /// How many requests the rule answers (nil: any number).
        var times: Int?
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
    }

    /// A request as the server received it.
    struct Request: Decodable {
        var method: String
        var path: String
        var authorization: String?
        var body: String
        /// Write preconditions as sent.
        var ifMatch: String?
        var ifNoneMatch: String?
    }

    let root: String
    let port: Int
    private let process: Process

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

    static let program = #"""
        import json, sys, http.server
        root = sys.argv[1]
        rules = json.load(open(root + "/rules.json"))
        used = [0] * len(rules)
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                auth = self.headers.get("Authorization")
                with open(root + "/requests.jsonl", "a") as log:
                    log.write(json.dumps({"method": self.command, "path": self.path, "authorization": auth, "body": body, "ifMatch": self.headers.get("If-Match"), "ifNoneMatch": self.headers.get("If-None-Match")}) + "\n")
                for index, rule in enumerate(rules):
                    if rule["method"] != self.command or rule["path"] != self.path: continue
                    if rule.get("bodyContains") and rule["bodyContains"] not in body: continue
                    if rule.get("authorization") and rule["authorization"] != auth: continue
                    if rule.get("times") is not None and used[index] >= rule["times"]: continue
                    used[index] += 1
                    data = rule.get("body", "").encode("utf-8")
                    self.send_response(rule["status"])
                    for key, value in rule.get("headers", {}).items(): self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(599)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_GET = do_POST = do_PUT = do_DELETE = do_OPTIONS = do_PROPFIND = do_REPORT = handle_any
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        open(root + "/port.tmp", "w").write(str(server.server_address[1]))
        import os; os.rename(root + "/port.tmp", root + "/port")
        server.serve_forever()
        """#

    /// Starts the server with `rules`; waits (bounded) until it has a port.
    init(rules: [Rule]) throws {
        var template = Array("/tmp/steno-scripted-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw RadicaleServerError("mkdtemp failed") }
        root = String(cString: pointer)
        let encoder = JSONEncoder()
        try encoder.encode(rules).write(to: URL(fileURLWithPath: root + "/rules.json"))
        try Self.program.write(toFile: root + "/server.py", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root + "/server.py", root]
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        var found: Int?
        while Date() < deadline, found == nil {
            found = (try? String(contentsOfFile: root + "/port", encoding: .utf8)).flatMap { Int($0) }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw RadicaleServerError("the scripted HTTP server did not start")
        }
        port = found
    }

    /// The requests received so far.
    var requests: [Request] {
        let text = (try? String(contentsOfFile: root + "/requests.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// Stops the server and removes its folder.
    func shutdown() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { shutdown() }
}

/// Multistatus bodies for scripted servers.
enum ScriptedDAV {
    static func multistatus(_ responses: [String], syncToken: String? = nil) -> String {
        #"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">"#
            + responses.joined() + (syncToken.map { "<d:sync-token>\($0)</d:sync-token>" } ?? "") + "</d:multistatus>"
    }

    static func member(_ href: String, etag: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:getetag>\(etag)</d:getetag></d:prop>"
            + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }

    static func status(_ href: String, _ status: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:status>HTTP/1.1 \(status)</d:status></d:response>"
    }

    static func object(_ href: String, etag: String, ics: String) -> String {
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:getetag>\(etag)</d:getetag>"
            + "<cal:calendar-data><![CDATA[\(ics)]]></cal:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }

    /// A calendar home listing one calendar at `href`.
    static func home(calendar href: String, ctag: String) -> String {
        multistatus([
            "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><cal:calendar/></d:resourcetype>"
                + "<d:displayname>Scripted</d:displayname><cs:getctag>\(ctag)</cs:getctag></d:prop>"
                + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        ])
    }
}
