package backoff

// Exported for the tests of package backoff_test.
var ClampedHint = clampedHint

func Tokens(b *Budget) float64 { return b.tokensLeft() }
