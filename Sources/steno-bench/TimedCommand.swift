#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One run of a command as a script waits for it: spawned, its standard output read from a
/// pipe to the end (and dropped), its exit awaited, nothing else timed. `ProcessRunner` is for
/// tests: it polls for the exit every 5 ms and decodes the output as text, and a run of the
/// CLI cases counted up to 5 ms of polling and the decoding of 10 MB as steno's own time.
enum TimedCommand {
    /// Why a timed run failed.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `executable` with `arguments` (standard input and error to /dev/null, `removing`
    /// taken out of the environment) and returns how long it took from spawn to exit.
    static func run(_ executable: String, _ arguments: [String], removing: [String] = []) throws -> Duration {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
        defer { close(pipe[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let environment = ProcessInfo.processInfo.environment.filter { !removing.contains($0.key) }.map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(pipe[1])
        guard spawned == 0 else { throw Failure(description: "spawn \(executable): \(String(cString: strerror(spawned)))") }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let elapsed = ContinuousClock.now - start
        // Exited normally with 0 (WIFEXITED and WEXITSTATUS, which Swift does not import).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) ended with status \(status)")
        }
        return elapsed
    }
}
