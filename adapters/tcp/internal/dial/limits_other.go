//go:build !linux

package dial

import (
	"math"

	"github.com/redial-go/redial/internal/opterr"
)

// Elsewhere only the module's own bounds apply.
const (
	maxKeepAliveTime  = opterr.MaxDuration
	maxKeepAliveCount = math.MaxInt32
)
