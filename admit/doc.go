// Package admit plans a server's return after a crash or a deploy. A
// Planner takes new connections at Config.Rate, holds an early one for its
// slot and answers the rest 503 with the Retry-After of the next free slot
// (Planner.Handler; a WebSocket already accepted closes 1013 with
// CloseReason): the load stays at the rate, the last client is back at
// N/Rate. redial's clients wait a hint plus rand[0, 1 s), so the plan's
// whole seconds come spread, not as waves.
//
// The operator sets Rate: the new connections a second the server takes
// on top of those it holds (handshake, authentication, first sync: measure
// it). It must not plan past that (the herd comes back in the plan's
// name), put Handler before requests that are not new connections (each
// takes a slot), or run two Planners for one capacity.
//
//	http.Handle("/feed", planner.Handler(feed)) // before websocket.Accept, Upgrade or an SSE handler
package admit
