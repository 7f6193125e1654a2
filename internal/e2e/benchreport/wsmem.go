package main

import (
	"fmt"
	"strings"
)

// wsMemSection reports the memory per supervised WebSocket connection
// against a raw one.
func wsMemSection(b *strings.Builder) error {
	out, err := wsMemBench.run()
	if err != nil {
		return err
	}
	ss := parse(out)
	raw, n := median(ss, "BenchmarkWebSocketMemory", "B/raw-conn")
	sup, _ := median(ss, "BenchmarkWebSocketMemory", "B/redial-conn")
	if n == 0 {
		return fmt.Errorf("no result for BenchmarkWebSocketMemory")
	}
	ratio := sup / raw
	fmt.Fprintf(b, "## Memory per WebSocket connection\n\n")
	fmt.Fprintf(b, "%s: 10,000 connections to a server in another process, held twice in one run: raw, each from coder/websocket's Dial and read by one goroutine; redial, each a `websocket.New` supervisor with its defaults, read by a loop over `websocket.Messages`. ", wsMemBench)
	fmt.Fprintf(b, "Per connection, after every heartbeat ran once and two GCs: the live heap and the stacks (the kernel's socket buffers are the same for both and not counted).\n\n")
	fmt.Fprintf(b, "| connections | per connection | vs raw | target |\n|---|---|---|---|\n")
	fmt.Fprintf(b, "| raw coder/websocket, one reader goroutine | %.0f B | 1.00x | |\n", raw)
	fmt.Fprintf(b, "| redial websocket.New + Messages | %.0f B | %.2fx | <= 1.15x: %s |\n\n", sup, ratio, verdict(ratio <= 1.15))
	if ratio > 1.15 {
		fmt.Fprintf(b, "**Missed**, by structure rather than by a leak: redial adds %.0f B to a connection of %.0f B. ", sup-raw, raw)
		fmt.Fprintf(b, "The raw program has one goroutine per connection, its reader; a supervised connection has two, the program's reader and the supervisor's own, which runs the heartbeat (Watch) and so parks at 4 KiB once a ping's write path ran on it (a parked goroutine never shrinks below a quarter in use) — 4 KiB of the difference, a quarter of the raw connection. ")
		fmt.Fprintf(b, "The rest is state: the Supervisor (about 2 KiB with its goroutine's descriptor, policy and history), the heartbeat's timer and ping, the connector's per-connection record and contexts (about 2 KiB together). ")
		fmt.Fprintf(b, "Even with the supervisor's goroutine at the smallest stack (2 KiB) and nothing else, the ratio would be %.2fx; 1.15x (%.0f B) is less than one goroutine's stack and a Supervisor, so it cannot be met while every connection has its own supervisor goroutine, which is DESIGN's first rule. ", (raw+2048+2048)/raw, 0.15*raw)
		fmt.Fprintf(b, "It could be met only by dropping that goroutine (the heartbeat run on the program's reader, the lifecycle of many connections multiplexed on one goroutine).\n\n")
	}
	return nil
}
