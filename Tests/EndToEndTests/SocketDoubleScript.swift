/// The Python of a daemon double on a Unix socket, for tests of `steno` against answers the
/// real daemon would not give (held, malformed or differently spelled pages).
enum SocketDoubleScript {
    /// A script listening on `sys.argv[1]` (it creates `<socket>.ready` once it listens) for one
    /// connection, answering each request line with `answer(request)` (bytes, without the
    /// newline), a function `definitions` define at the top level; `args` holds the arguments
    /// after the socket's path.
    static func python(_ definitions: String) -> String {
        """
        import json, os, socket, sys
        sock_path, args = sys.argv[1], sys.argv[2:]
        \(definitions)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(sock_path); server.listen(1)
        open(sock_path + ".ready", "w").close()
        conn, _ = server.accept()
        pending = b""
        while True:
            data = conn.recv(65536)
            if not data: break
            pending += data
            while b"\\n" in pending:
                line, pending = pending.split(b"\\n", 1)
                conn.sendall(answer(json.loads(line)) + b"\\n")
        """
    }
}
