import Foundation

/// A file or folder name made from outside text (a meeting's title, an owner's name) that every
/// common filesystem takes as it is: ext4, APFS, NTFS, FAT and exFAT, and a zip archive.
///
/// Letters and digits of any script stay (composed, NFC); spaces, `-`, `_`, `.`, `(`, `)` and
/// `,` stay; everything else (separators, `:*?"<>|`, control and format characters, emoji)
/// becomes `_`, runs of them one. No name is empty, starts with `.` or `-` (a hidden file, an
/// option), ends with a space or `.` (which Windows drops), or is a device name Windows reserves
/// (`CON`, `NUL`, `COM1`…); names stay within `maximumBytes` of UTF-8, cut between characters.
public enum PortableFileName {
    /// Bytes of UTF-8 a name keeps at most: well under the 255 every filesystem allows, leaving
    /// room for an extension and a prefix.
    public static let maximumBytes = 120

    /// The portable form of `text`, or `fallback` (itself made portable) when nothing of it is left.
    public static func make(_ text: String, fallback: String = "untitled") -> String {
        var name = ""
        var lastWasReplaced = false
        for character in text.precomposedStringWithCanonicalMapping {
            if isKept(character) {
                name.append(character)
                lastWasReplaced = false
            } else if !lastWasReplaced {
                name.append("_")
                lastWasReplaced = true
            }
        }
        name = trimmed(name)
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= maximumBytes else { break }
            cut.append(character)
        }
        name = trimmed(cut)
        guard !name.isEmpty, name.contains(where: { $0 != "_" }) else {
            return fallback == text ? "untitled" : make(fallback, fallback: "untitled")
        }
        let stem = name.split(separator: ".", maxSplits: 1).first.map { String($0).trimmingCharacters(in: .whitespaces).uppercased() } ?? ""
        if reservedOnWindows.contains(stem) { name = "_" + name }
        return name
    }

    /// The portable form of a name with an extension kept whole (`report.m4a`).
    public static func make(_ text: String, extension ext: String, fallback: String = "untitled") -> String {
        let suffix = make(ext, fallback: "bin")
        return make(text, fallback: fallback) + "." + suffix
    }

    /// A character that stays: one of the kept punctuation, or a letter or digit (with its
    /// combining marks); never a lone mark, a symbol, an emoji, a control or format character.
    private static func isKept(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return false }
        if scalars.count == 1, " -_.(),".unicodeScalars.contains(first) { return true }
        func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
            !isMark(scalar) && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil)
        }
        func isMark(_ scalar: Unicode.Scalar) -> Bool {
            [.nonspacingMark, .spacingMark].contains(scalar.properties.generalCategory)
        }
        return isLetterOrDigit(first) && scalars.dropFirst().allSatisfy { isLetterOrDigit($0) || isMark($0) }
    }

    /// Without leading dots, dashes and spaces, and trailing dots and spaces.
    private static func trimmed(_ name: String) -> String {
        var name = Substring(name)
        while let first = name.first, first == "." || first == "-" || first == " " { name = name.dropFirst() }
        while let last = name.last, last == "." || last == " " { name = name.dropLast() }
        return String(name)
    }

    private static let reservedOnWindows: Set<String> = {
        var names: Set<String> = ["CON", "PRN", "AUX", "NUL"]
        for number in 0...9 { names.insert("COM\(number)"); names.insert("LPT\(number)") }
        return names
    }()
}
