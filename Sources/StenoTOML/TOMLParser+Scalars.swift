import StenoJSON

// Bare tokens: numbers, booleans, inf/nan, dates and times.
extension _TOMLParser {
    /// Reads a bare token (booleans, numbers, inf/nan, dates and times) and classifies it.
    mutating func parseScalarToken() throws(TOMLError) -> JSONValue {
        let start = index
        while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
        // A date-time may use a space instead of `T`: `1979-05-27 07:32:00`.
        if index - start == 10, index + 3 < bytes.count, bytes[index] == 0x20,
           Self.isDigit(bytes[index + 1]), Self.isDigit(bytes[index + 2]), bytes[index + 3] == UInt8(ascii: ":"),
           bytes[start + 4] == UInt8(ascii: "-") {
            index += 1
            while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
        }
        guard index > start else { throw fail("expected a value, found \(describe(index))") }
        let token = Array(bytes[start..<index])
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .double(.infinity)
        case "-inf": return .double(-.infinity)
        case "nan", "+nan", "-nan": return .double(.nan)
        default: break
        }
        if token.count >= 10, token[4] == UInt8(ascii: "-"), token[7] == UInt8(ascii: "-") {
            guard let value = Self.dateTime(token) else { throw fail("invalid date or date-time \(text)", at: start) }
            return .string(value)
        }
        if token.count >= 8, token[2] == UInt8(ascii: ":") {
            guard let value = Self.time(token[...]) else { throw fail("invalid time \(text)", at: start) }
            return .string(value)
        }
        if let integer = try integer(token, text: text, at: start) { return .int(integer) }
        guard let float = Self.float(token) else { throw fail("invalid value \(text)", at: start) }
        guard float.isFinite else { throw fail("float \(text) is out of range", at: start) }
        return .double(float)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    /// Digits (per `isDigit`) with single underscores only between digits.
    static func validDigits(_ digits: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool = isDigit) -> Bool {
        guard let first = digits.first, let last = digits.last, isDigit(first), isDigit(last) else { return false }
        var previousUnderscore = false
        for byte in digits {
            if byte == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else {
                guard isDigit(byte) else { return false }
                previousUnderscore = false
            }
        }
        return true
    }

    /// An integer, nil when the token is not integer-shaped (so it may be a float); throws for
    /// integer-shaped tokens that break the rules.
    func integer(_ token: [UInt8], text: String, at start: Int) throws(TOMLError) -> Int64? {
        if token.count > 2, token[0] == UInt8(ascii: "0"), [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(token[1]) {
            let radix = token[1] == UInt8(ascii: "x") ? 16 : token[1] == UInt8(ascii: "o") ? 8 : 2
            let digits = token[2...]
            guard Self.validDigits(digits, isDigit: { (Self.hexDigit($0).map { Int($0) < radix }) ?? false }) else {
                throw fail("invalid base-\(radix) integer \(text)", at: start)
            }
            guard let value = Int64(String(decoding: digits.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self), radix: radix) else {
                throw fail("integer \(text) does not fit in 64 bits", at: start)
            }
            return value
        }
        var digits = token[...]
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard digits.allSatisfy({ Self.isDigit($0) || $0 == UInt8(ascii: "_") }) else { return nil }
        guard Self.validDigits(digits) else { throw fail("invalid integer \(text)", at: start) }
        if digits.count > 1, digits.first == UInt8(ascii: "0") { throw fail("leading zeros are not allowed: \(text)", at: start) }
        guard let value = Int64(String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)) else {
            throw fail("integer \(text) does not fit in 64 bits", at: start)
        }
        return value
    }

    /// `[+-]int(.frac)?([eE][+-]?exp)?` with at least a fraction or an exponent.
    static func float(_ token: [UInt8]) -> Double? {
        var mantissa = token[...]
        var exponent: ArraySlice<UInt8>?
        if let e = token.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissa = token[..<e]
            var digits = token[(e + 1)...]
            if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { digits = digits.dropFirst() }
            guard validDigits(digits) else { return nil }
            exponent = digits
        }
        var integerPart = mantissa
        if let sign = integerPart.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { integerPart = integerPart.dropFirst() }
        var fraction: ArraySlice<UInt8>?
        if let dot = integerPart.firstIndex(of: UInt8(ascii: ".")) {
            fraction = integerPart[(dot + 1)...]
            integerPart = integerPart[..<dot]
        }
        guard fraction != nil || exponent != nil, validDigits(integerPart),
              !(integerPart.count > 1 && integerPart.first == UInt8(ascii: "0")) else { return nil }
        if let fraction, !validDigits(fraction) { return nil }
        return Double(String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self))
    }

    /// Validates a date, local date-time or offset date-time and returns its normalized text.
    static func dateTime(_ token: [UInt8]) -> String? {
        guard let year = number(token, 0, 4), let month = number(token, 5, 2), let day = number(token, 8, 2),
              (1...12).contains(month), day >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= monthDays[month - 1] else { return nil }
        let date = String(decoding: token[..<10], as: UTF8.self)
        if token.count == 10 { return date }
        guard [UInt8(ascii: "T"), UInt8(ascii: "t"), 0x20].contains(token[10]) else { return nil }
        var rest = token[11...]
        var zone = ""
        if let last = rest.last, last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
            zone = "Z"
            rest = rest.dropLast()
        } else if rest.count >= 14, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(rest[rest.endIndex - 6]) {
            let offset = Array(rest[(rest.endIndex - 6)...])
            guard let hours = number(offset, 1, 2), offset[3] == UInt8(ascii: ":"), let minutes = number(offset, 4, 2),
                  hours < 24, minutes < 60 else { return nil }
            zone = String(decoding: offset, as: UTF8.self)
            rest = rest.dropLast(6)
        }
        guard let time = time(rest) else { return nil }
        return date + "T" + time + zone
    }

    /// Validates `HH:MM:SS(.fraction)?` (seconds are required in TOML 1.0).
    static func time(_ token: ArraySlice<UInt8>) -> String? {
        let bytes = Array(token)
        guard bytes.count >= 8, let hour = number(bytes, 0, 2), bytes[2] == UInt8(ascii: ":"),
              let minute = number(bytes, 3, 2), bytes[5] == UInt8(ascii: ":"), let second = number(bytes, 6, 2),
              hour < 24, minute < 60, second <= 60 else { return nil }
        if bytes.count > 8 {
            guard bytes[8] == UInt8(ascii: "."), bytes.count > 9, bytes[9...].allSatisfy(isDigit) else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `count` decimal digits at `offset`, or nil.
    static func number(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[offset..<offset + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
