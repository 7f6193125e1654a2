package sse

// pkg prefixes this package's bad-option errors.
const pkg = "sse"

// schemes are the URL schemes the adapter requests.
var schemes = []string{"http", "https"}
