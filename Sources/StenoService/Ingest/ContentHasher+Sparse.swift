#if canImport(Glibc)
import Glibc
#endif
import StenoCore

extension ContentHasher {
    /// Files smaller than this are not checked for holes: hashing them costs little.
    static let sparseCheckMinimum: Int64 = 64 << 20

    /// `lseek` whences Swift's Glibc module leaves out (they are GNU extensions).
    private static let seekData: Int32 = 3, seekHole: Int32 = 4

    /// Why the open file `fd` is refused as sparse, or nil.
    ///
    /// A recorder writes every byte of its file; a file of 64 MiB or more with less than half
    /// of it on disk and a hole before its end was made with `truncate` or a sparse copy.
    /// Hashing one would keep a worker reading zeros for minutes (150 GB: more than two), and
    /// the recording it described would be silence. Compressing file systems keep fewer blocks
    /// than the size too, which is why a hole must be found as well.
    static func sparseRefusal(_ fd: Int32, info: stat) -> String? {
        let size = Int64(info.st_size)
        let stored = Int64(info.st_blocks) * 512
        guard size >= sparseCheckMinimum, stored < size / 2 else { return nil }
        let hole = lseek(fd, 0, seekHole)
        _ = lseek(fd, 0, SEEK_SET)
        guard hole >= 0, Int64(hole) < size else { return nil }
        return "a sparse file: \(ByteCountText.binary(UInt64(size))) long with \(ByteCountText.binary(UInt64(max(0, stored)))) stored on disk "
            + "(holes from \(ByteCountText.binary(UInt64(hole))) on); no recorder writes one — copy the original recording in whole"
    }
}
