// Package conformance runs the same cases against every adapter, as
// testing/fstest.TestFS runs the same checks against every fs.FS: a rule
// is written once, in the shared code, and proven the same way for each
// adapter (DESIGN.md v3, "One conformance suite").
//
// Each adapter's test package gives Run a Harness: a real server on
// 127.0.0.1 that can serve, refuse (retryably and for good), close, kill
// and stall, and echoes what it received in every text it sends; and a
// constructor that turns the case's Options into the adapter's. The cases:
//
//   - bad-options: one error wrapping supervisor.ErrInvalidOptions that
//     names the field once;
//   - secrets-refused, -closed, -after-run, -callbacks: secrets the server
//     echoes (handshake body, status line, close reason, the answer to the
//     client's goodbye after Run ended) and those in the program's own
//     callbacks' errors, in every derived form (URL encodings, Basic
//     authorization, a name=value part of a header, a credential an
//     earlier BeforeConnect set), are shown nowhere: not in Run's error,
//     Err, Status, History, the log of a stock slog handler, a stream's
//     errors, nor anywhere errors.As or a reflective logger can reach;
//   - panic-connect, -on-connect, -classify, -logger: a panic in the
//     program's callback surfaces as DESIGN v3 says;
//   - order-failed, order-stopped: the order of Err, Done and the health
//     channel at the end, with a slow Logger;
//   - permanent-refusal: a refusal for good ends Run and every stream;
//   - timeout-connect, timeout-on-connect: ConnectTimeout bounds a
//     callback that ignores its ctx;
//   - no-leak: nothing left running once Run returned;
//   - reconnect-after-kill; stall: a stalled connection found by the
//     adapter's liveness rule.
//
// A harness says in its Skip table why a case does not apply, and in its
// Known table which defect makes a case fail today: such a case is
// skipped with that reason after it was seen to fail (in a child process
// when it would crash the test binary), and fails the test once it passes.
package conformance
