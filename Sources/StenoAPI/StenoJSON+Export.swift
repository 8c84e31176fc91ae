// The API's requests, responses and JSON-RPC messages are JSONValues: everyone who imports the
// API (the CLI, the daemon, test clients) reads and writes them, so the codec comes with it.
@_exported import StenoJSON
