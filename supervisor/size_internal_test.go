package supervisor

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// The memory budget of an idle supervisor (BENCHMARKS.md, "An idle
// supervisor"): every byte of these is held by every connection a program
// keeps, so a field added here must be paid for. The Supervisor fits the
// allocator's 640-byte size class (the next is 768), a history entry
// takes 56 bytes (a health.Transition 104).
func TestIdleSupervisorSizeBudget(t *testing.T) {
	t.Logf("Supervisor %d B, history entry %d B", unsafe.Sizeof(Supervisor[*int]{}), unsafe.Sizeof(entry{}))
	assert.LessOrEqual(t, unsafe.Sizeof(Supervisor[*int]{}), uintptr(512))
	assert.LessOrEqual(t, unsafe.Sizeof(entry{}), uintptr(56))
}
