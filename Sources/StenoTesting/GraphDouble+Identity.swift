import Foundation

extension GraphDoubleService {
    /// `POST /{tenant}/oauth2/v2.0/devicecode` and `…/token`.
    func identity(_ request: GraphDouble.Request, endpoint: String, base: String) -> GraphDoubleResponse {
        let form = Self.form(request.body)
        let clientID = form["client_id"] ?? ""
        return state.withLock { state -> GraphDoubleResponse in
            switch endpoint {
            case "devicecode":
                guard state.publicClients.contains(clientID) else {
                    return .oauthError(400, "unauthorized_client", "AADSTS700016: Application with identifier '\(clientID)' was not found in the directory.")
                }
                state.tokenCounter += 1
                let deviceCode = "dc-\(state.tokenCounter)-\(UUID().uuidString)"
                let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
                let userCode = String((0..<8).map { _ in letters[Int.random(in: 0..<letters.count)] })
                state.deviceCodes[deviceCode] = DeviceCode(
                    clientID: clientID, scope: form["scope"] ?? "", expiresAt: Date().addingTimeInterval(Double(state.deviceLifetime)),
                    script: state.deviceScript)
                let uri = base + "/devicelogin"
                return .json(200, [
                    "device_code": deviceCode, "user_code": userCode, "verification_uri": uri, "expires_in": state.deviceLifetime,
                    "interval": state.deviceInterval,
                    "message": "To sign in, use a web browser to open the page \(uri) and enter the code \(userCode) to authenticate.",
                ])
            case "token":
                return Self.grant(form, clientID: clientID, state: &state)
            default:
                return .oauthError(404, "invalid_request", "AADSTS90002: unknown endpoint \(endpoint)")
            }
        }
    }

    private static func grant(_ form: [String: String], clientID: String, state: inout State) -> GraphDoubleResponse {
        switch form["grant_type"] ?? "" {
        case "urn:ietf:params:oauth:grant-type:device_code":
            guard let code = form["device_code"], var flow = state.deviceCodes[code], flow.clientID == clientID, !flow.redeemed else {
                return .oauthError(400, "invalid_grant", "AADSTS70000: The provided value for the 'device_code' is not valid.")
            }
            flow.polls += 1
            defer { state.deviceCodes[code] = flow }
            if Date() > flow.expiresAt {
                return .oauthError(400, "expired_token", "AADSTS70020: The provided value for the input parameter 'device_code' is not valid. This device code has expired.")
            }
            if flow.script.slowDownAtPoll == flow.polls {
                return .oauthError(400, "slow_down", "Polling too fast: wait 5 more seconds between requests.")
            }
            if flow.polls <= flow.script.pendingPolls {
                return .oauthError(400, "authorization_pending", "AADSTS70016: OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
            }
            switch flow.script.outcome {
            case .approve(let user):
                flow.redeemed = true
                return issue(principal: "user:\(user)", scope: flow.scope, refresh: flow.scope.contains("offline_access"), state: &state)
            case .decline:
                return .oauthError(400, "authorization_declined", "AADSTS70019: the end user denied the authorization request.")
            case .expire:
                return .oauthError(400, "expired_token", "AADSTS70020: This device code has expired.")
            }
        case "refresh_token":
            guard state.publicClients.contains(clientID) else {
                return .oauthError(400, "unauthorized_client", "AADSTS700016: Application with identifier '\(clientID)' was not found in the directory.")
            }
            guard let token = form["refresh_token"], let grant = state.refreshTokens[token] else {
                return .oauthError(400, "invalid_grant", "AADSTS70000: The provided grant is invalid or malformed (the refresh token was revoked).")
            }
            // A refreshed token carries the scopes consented at sign-in.
            return issue(principal: grant.principal, scope: grant.scope, refresh: true, state: &state)
        case "client_credentials":
            guard let secret = state.confidentialClients[clientID], secret == form["client_secret"] else {
                return .oauthError(401, "invalid_client", "AADSTS7000215: Invalid client secret provided.")
            }
            guard let scope = form["scope"], scope.hasSuffix("/.default") else {
                return .oauthError(400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed.")
            }
            return issue(principal: "app:\(clientID)", scope: scope, refresh: false, state: &state)
        default:
            return .oauthError(400, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
        }
    }

    private static func issue(principal: String, scope: String, refresh: Bool, state: inout State) -> GraphDoubleResponse {
        state.tokenCounter += 1
        let access = "at-\(state.tokenCounter)-\(UUID().uuidString.prefix(8))"
        state.accessTokens[access] = Grant(principal: principal, scope: scope)
        var body: [String: Any] = [
            "token_type": "Bearer", "scope": scope, "expires_in": state.accessTokenLifetime, "ext_expires_in": state.accessTokenLifetime,
            "access_token": access,
        ]
        if refresh, principal.hasPrefix("user:") {
            let token = "rt-\(state.tokenCounter)-\(UUID().uuidString.prefix(8))"
            state.refreshTokens[token] = Grant(principal: principal, scope: scope)
            body["refresh_token"] = token
        }
        return .json(200, body)
    }

    /// A form body's fields.
    static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }
}
