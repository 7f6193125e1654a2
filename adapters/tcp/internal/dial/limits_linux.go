//go:build linux

package dial

import (
	"math"
	"time"
)

// Linux refuses (EINVAL) TCP_KEEPIDLE and TCP_KEEPINTVL over 32767
// seconds and TCP_KEEPCNT over 127 (MAX_TCP_KEEPIDLE, MAX_TCP_KEEPINTVL,
// MAX_TCP_KEEPCNT in include/net/tcp.h).
const (
	maxKeepAliveTime  = math.MaxInt16 * time.Second
	maxKeepAliveCount = 127
)
