#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A scripted HTTP server on 127.0.0.1 (a small Python program) for the server behaviours
/// Radicale does not have: truncated sync-collection results (507), rate limits, OAuth
/// bearer tokens. Answers each request with the first rule that matches and is not used up,
/// and records every request.
public final class ScriptedHTTPServer: @unchecked Sendable {
    /// One scripted answer.
    public struct Rule: Encodable, Sendable {
        public var method: String
        public var path: String
        /// A substring the request body must contain.
        public var bodyContains: String?
        /// The exact Authorization header required.
        public var authorization: String?
        /// How many requests the rule answers (nil: any number).
        public var times: Int?
        public var status: Int
        public var headers: [String: String]
        public var body: String
        /// The answer is held until a file exists at this path (at most ten minutes): a test
        /// creates it once it saw what happens while the request waits.
        public var holdUntilFileExists: String?

        public init(
            method: String, path: String, bodyContains: String? = nil, authorization: String? = nil, times: Int? = nil, status: Int,
            headers: [String: String] = [:], body: String = "", holdUntilFileExists: String? = nil
        ) {
            self.holdUntilFileExists = holdUntilFileExists
            self.method = method
            self.path = path
            self.bodyContains = bodyContains
            self.authorization = authorization
            self.times = times
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    /// A request as the server received it.
    public struct Request: Decodable, Sendable {
        public var method: String
        public var path: String
        public var authorization: String?
        public var body: String
        /// Write preconditions as sent.
        public var ifMatch: String?
        public var ifNoneMatch: String?
    }

    public let root: String
    public let port: Int
    private let process: ChildProcess

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

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
                    if rule.get("holdUntilFileExists"):
                        import os, time
                        deadline = time.time() + 600
                        while not os.path.exists(rule["holdUntilFileExists"]) and time.time() < deadline: time.sleep(0.05)
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
    public init(rules: [Rule]) throws {
        var template = Array("/tmp/steno-scripted-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw RadicaleServerError("mkdtemp failed") }
        root = String(cString: pointer)
        let encoder = JSONEncoder()
        try encoder.encode(rules).write(to: URL(fileURLWithPath: root + "/rules.json"))
        try Self.program.write(toFile: root + "/server.py", atomically: true, encoding: .utf8)
        process = try ChildProcess("/usr/bin/env", ["python3", root + "/server.py", root], standardOutput: .inherit, standardError: .inherit)
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
    public var requests: [Request] {
        let text = (try? String(contentsOfFile: root + "/requests.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// Stops the server and removes its folder.
    public func shutdown() {
        process.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: root)
    }

    deinit { shutdown() }
}
