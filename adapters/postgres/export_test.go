package postgres

// Buffered returns how many deliveries wait in l's buffer: nothing else
// tells a test that the Listener has received what it has not handed out.
func Buffered(l *Listener) int { return len(l.items) }

// BufferCap returns the capacity of l's buffer.
func BufferCap(l *Listener) int { return cap(l.items) }

// EndpointNames returns the endpoints' names of a supervisor on dsn: none
// when it has one.
func EndpointNames(dsn string) []string {
	cfg, err := parseConn(dsn)
	if err != nil {
		panic(err)
	}
	return names(endpointsOf(&cfg.Config, secretsOf(dsn, &cfg.Config)))
}
