// Package websocket keeps a github.com/coder/websocket connection alive
// under a redial supervisor: New dials, pings and reconnects; Messages
// reads. Its endpoint, secret and refusal rules are gorilla's and sse's
// too (one core; README, "Adapters").
package websocket
