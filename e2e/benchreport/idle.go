package main

import (
	"fmt"
	"strings"
)

// idleSection reports what an idle supervisor costs: 10,000 of them
// without I/O, 100,000 of them, and over real loopback TCP connections.
func idleSection(b *strings.Builder) error {
	out, err := idleBench.run()
	if err != nil {
		return err
	}
	ss := parse(out)
	total, n := median(ss, "BenchmarkIdleSupervisors", "B/supervisor")
	stack, _ := median(ss, "BenchmarkIdleSupervisors", "stack-B/supervisor")
	wake, _ := median(ss, "BenchmarkIdleSupervisors", "sched-samples/supervisor/s")
	logged, _ := median(ss, "BenchmarkIdleSupervisorsWithLogger", "B/supervisor")
	loggedStack, _ := median(ss, "BenchmarkIdleSupervisorsWithLogger", "stack-B/supervisor")
	out, err = idle100kBench.run()
	if err != nil {
		return err
	}
	ss = parse(out)
	mb, _ := median(ss, "BenchmarkIdleSupervisors100k", "MB")
	per100k, _ := median(ss, "BenchmarkIdleSupervisors100k", "B/supervisor")
	stack100k, _ := median(ss, "BenchmarkIdleSupervisors100k", "stack-B/supervisor")
	wake100k, _ := median(ss, "BenchmarkIdleSupervisors100k", "sched-samples/s")
	out, err = idleTCPBench.run()
	if err != nil {
		return err
	}
	ss = parse(out)
	tcp, _ := median(ss, "BenchmarkIdleTCPSupervisors", "B/supervisor")
	tcpStack, _ := median(ss, "BenchmarkIdleTCPSupervisors", "stack-B/supervisor")
	plain, _ := median(ss, "BenchmarkIdleTCPSupervisors", "B/plain-conn")

	fmt.Fprintf(b, "## An idle supervisor\n\n")
	fmt.Fprintf(b, "- %s: 10,000 connected supervisors without a Watcher, heap and stack growth divided by 10,000 (the parked Run goroutine included, the connection a zero-size value); median of %d runs.\n", idleBench, n)
	fmt.Fprintf(b, "- The same command's `BenchmarkIdleSupervisorsWithLogger`, run beside it: the same 10,000 with a stock `slog.NewJSONHandler(io.Discard, nil)` as every supervisor's Logger, as real programs run them (each logged its connect).\n")
	fmt.Fprintf(b, "- %s: the same with 100,000, all of them.\n", idle100kBench)
	fmt.Fprintf(b, "- %s: 5,000 `adapters/tcp` supervisors idle on real loopback connections, and in the same run 5,000 plain `net.Dial` connections held by the program; the figure is what the supervisor adds to the connection (supervised minus plain: heap and stack after two GCs).\n\n", idleTCPBench)
	fmt.Fprintf(b, "Wake-ups are the runtime's scheduling samples (`/sched/latencies:seconds`, about one in eight schedules) over one idle second.\n\n")
	fmt.Fprintf(b, "| measure | figure | target |\n|---|---|---|\n")
	fmt.Fprintf(b, "| memory per idle supervisor, no I/O | %.0f B (stack %.0f B) | <= 4096 B: %s |\n", total, stack, verdict(total <= 4096))
	fmt.Fprintf(b, "| memory per idle supervisor, no I/O, a slog JSON handler as Logger | %.0f B (stack %.0f B), %.2fx the one without | <= 4096 B and <= 1.05x: %s |\n", logged, loggedStack, logged/total, verdict(logged <= 4096 && logged <= 1.05*total))
	fmt.Fprintf(b, "| memory per idle supervisor over a loopback TCP connection | %.0f B (stack %.0f B; the plain connection itself %.0f B) | <= 4096 B: %s |\n", tcp, tcpStack, plain, verdict(tcp <= 4096))
	fmt.Fprintf(b, "| 100,000 idle supervisors, no Watcher | %.0f MB (%.0f B each, stack %.0f B) | <= 400 MB: %s |\n", mb, per100k, stack100k, verdict(mb <= 400))
	fmt.Fprintf(b, "| scheduling samples per supervisor per idle second (10,000) | %.4f | 0: %s |\n", wake, verdict(wake < 0.001))
	fmt.Fprintf(b, "| scheduling samples in an idle second, 100,000 supervisors | %.0f | 0 but the benchmark's own: %s |\n\n", wake100k, verdict(wake100k <= 1))
	fmt.Fprintf(b, "The benchmark's own goroutine wakes once, at the end of the second it sleeps, and may be sampled: at most one sample is its own, not a supervisor's.\n\n")
	fmt.Fprintf(b, "The stack. Go never shrinks a parked goroutine's stack below a quarter in use (the 800-byte guard counted), so a goroutine that grew to 4 KiB once stays there while it parks with the connection. ")
	fmt.Fprintf(b, "A real dial (DNS, TLS, an HTTP handshake) takes kilobytes of stack, and a Logger's handler grows the stack it runs on, so every burst of the lifecycle's work — an attempt (BeforeConnect, Connect, OnConnect, Classify), the end of a connection, the stop, and every Logger call — runs on a short-lived goroutine (a hand, `supervisor/hand.go`) whose stack is freed when the burst ends, while Run's goroutine only waits; Watch alone runs on Run's goroutine (a goroutine of its own would cost its stack for the connection's life); ")
	fmt.Fprintf(b, "Run's own path keeps its frames small and makes its few allocations at the top of the loop (the history's first two entries, the attempt's goroutine). Run's goroutine then parks with the stack it started with: %.0f B on average over a real connection (a few grow in a malloc slow path as they park), 4 KiB before. ", tcpStack)
	fmt.Fprintf(b, "`TestIdleSupervisorKeepsNoStackOfItsDial` (supervisor/stack_test.go) holds the budget: 500 supervisors whose Connect and OnConnect recurse 16 KiB deep must park with at most their starting stack + 512 B (it fails when the attempt runs on Run's goroutine, which then keeps 4 KiB). ")
	fmt.Fprintf(b, "Go starts a goroutine with the average stack of the last GC's goroutines (2 KiB at least): in a process of mostly supervisors that is 2 KiB; the first goroutines of a nearly empty process may start at 4 KiB, which is in these figures too.\n\n")
	heap := tcp - tcpStack
	fmt.Fprintf(b, "The heap, %.0f B over a TCP connection: the Supervisor struct with its Status, Settings, history slice header and reconnect window (632 B, in the allocator's 640-byte class: the Connector's optional interfaces are asserted where they are used rather than kept, Run's result is the failure it recorded), its two channels (0.2 KiB), the goroutine's descriptor (about 0.5 KiB, the runtime's), the two sudogs its select parks with (0.2 KiB), the delay policy (240 B, one allocation: backoff, first-retry generator and the one endpoint's state inline), the history's first two entries (112 B: the history keeps 56-byte entries and makes a health.Transition only when read), and the tcp dialer (about 0.2 KiB); Conn makes its wait channel only when it has to wait. `TestIdleSupervisorSizeBudget` (supervisor/size_internal_test.go) holds the struct and entry sizes. ", heap)
	if tcp > 4096 || mb > 400 {
		fmt.Fprintf(b, "What is **missed** is missed by what is left with the stack at its floor: the Supervisor's own state and the runtime's goroutine descriptor and sudogs; the stack figure is an average over goroutines some of which started larger (see above), which is most of the run-to-run spread.\n\n")
	} else {
		fmt.Fprintf(b, "\n\n")
	}
	return nil
}
