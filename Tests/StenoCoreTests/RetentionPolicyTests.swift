import Foundation
import StenoCore
import Testing

/// Which rule keeps a recording, and when it has outlived it.
@Suite("Retention policy")
struct RetentionPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = RetentionPolicy(
        keepDays: 365, owners: ["alice": 730, "bob": 30, "carol": 0], folders: ["legal/": 0, "legal/drafts/": 10, "town-hall/": 90])

    func candidate(owner: String?, paths: [String], daysOld: Double) -> RetentionCandidate {
        RetentionCandidate(recordingID: 1, ownerName: owner, agedFrom: now.addingTimeInterval(-daysOld * 86_400), paths: paths)
    }

    @Test func theMostSpecificRuleDecides() {
        #expect(policy.rule(owner: "dave", paths: ["dave/a.wav"]) == RetentionRule(scope: .everyone, days: 365))
        #expect(policy.rule(owner: "Alice", paths: ["alice/a.wav"]) == RetentionRule(scope: .owner("alice"), days: 730), "names compare as the catalog compares them")
        #expect(policy.rule(owner: "carol", paths: ["carol/a.wav"]) == RetentionRule(scope: .owner("carol"), days: nil), "0 keeps forever")
        #expect(policy.rule(owner: "alice", paths: ["town-hall/a.wav"]) == RetentionRule(scope: .folder("town-hall/"), days: 90), "a folder over an owner")
        #expect(policy.rule(owner: "bob", paths: ["legal/drafts/x.wav"]) == RetentionRule(scope: .folder("legal/drafts/"), days: 10), "the deepest folder")
        #expect(policy.rule(owner: "bob", paths: ["legal/x.wav"]) == RetentionRule(scope: .folder("legal/"), days: nil))
        #expect(policy.rule(owner: "bob", paths: ["legal-not/x.wav"]) == RetentionRule(scope: .owner("bob"), days: 30), "a folder is a whole name")
        // Seen in two folders: the one keeping longer wins, so no rule removes what another keeps.
        #expect(policy.rule(owner: "bob", paths: ["town-hall/a.wav", "legal/a.wav"]) == RetentionRule(scope: .folder("legal/"), days: nil))
        #expect(policy.rule(owner: "bob", paths: ["town-hall/a.wav", "legal/drafts/a.wav"]) == RetentionRule(scope: .folder("town-hall/"), days: 90))
        #expect(RetentionPolicy().rule(owner: "x", paths: ["x/a.wav"]).days == nil, "no rule keeps forever")
    }

    @Test func aRecordingExpiresOnceOlderThanItsRule() {
        #expect(policy.expiry(of: candidate(owner: "dave", paths: ["dave/a.wav"], daysOld: 364), now: now) == nil)
        let expired = policy.expiry(of: candidate(owner: "dave", paths: ["dave/a.wav"], daysOld: 366), now: now)
        #expect(expired?.rule.setting == "keep_days = 365")
        #expect(policy.expiry(of: candidate(owner: "bob", paths: ["bob/a.wav"], daysOld: 31), now: now)?.rule.setting == "[retention.owners] bob = 30")
        #expect(policy.expiry(of: candidate(owner: "carol", paths: ["carol/a.wav"], daysOld: 100_000), now: now) == nil)
        #expect(policy.expiry(of: candidate(owner: nil, paths: [], daysOld: 400), now: now)?.rule.scope == .everyone, "no owner, no file: keep_days")
    }

    @Test func aRunLooksOnlyAsFarAsTheShortestRule() {
        #expect(policy.oldestKept(now: now) == now.addingTimeInterval(-10 * 86_400))
        #expect(RetentionPolicy(owners: ["carol": 0]).oldestKept(now: now) == nil)
        #expect(!RetentionPolicy(folders: ["legal/": 0]).removesAnything)
        #expect(RetentionPolicy(folders: ["tmp/": 7]).removesAnything)
        #expect(policy.settings == [
            "keep_days = 365", "[retention.owners] alice = 730", "[retention.owners] bob = 30", "[retention.owners] carol = 0",
            "[retention.folders] \"legal/\" = 0", "[retention.folders] \"legal/drafts/\" = 10", "[retention.folders] \"town-hall/\" = 90",
        ])
    }

    @Test func folderKeysAreFoldersOfTheInbox() {
        #expect(RetentionPolicy.folderKey("legal") == "legal/")
        #expect(RetentionPolicy.folderKey("./legal/2026/") == "legal/2026/")
        for bad in ["", "/etc/", "../x/", "a/../b", "a//b", "./"] {
            #expect(RetentionPolicy.folderKey(bad) == nil, "\(bad)")
        }
    }
}
