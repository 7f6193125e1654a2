// Package httpcore is the core of the HTTP-based adapters (websocket,
// gorilla, sse): what they do the same way is written here once — the
// endpoints (url, Replicas, Header, BeforeConnect), the secret set, the
// refusal classes, the close codes, the heartbeat, the close, the message
// loop with its one reader, and the rule for a poison message. An adapter
// gives a Spec and a Library: what its transport library does differently
// (dial, watch, read, close).
package httpcore
