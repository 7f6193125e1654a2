package gorilla

// schemes are the URL schemes the adapter dials.
var schemes = []string{"ws", "wss"}
