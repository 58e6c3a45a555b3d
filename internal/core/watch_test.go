package core

import (
	"math"
	"testing"
)

// A wait's deadline in the registry (rDeadline, which snapshot() shows as
// deadlineInMs) is its deadline shifted by the agent's offset, however the
// clock moves while it is written: read twice, a clock that moved between
// the readings (a thread descheduled on a busy machine: 85 ms, WebKit)
// moved the deadline that much earlier.
func TestRegistryDeadlineIsTheDeadlineShifted(t *testing.T) {
	saved, savedOffset := host, reg.offsetMs
	defer func() { SetHost(saved); reg.offsetMs = savedOffset }()
	h, now := saved, 1000.0
	h.NowMs = func() float64 { now += 85; return now }
	SetHost(h)
	reg.offsetMs = 5000
	if got := registryDeadline(3000); got != 8000 {
		t.Errorf("registryDeadline(3000) with offset 5000, the clock moving 85 ms a reading: %d, want 8000", got)
	}
	if got := registryDeadline(math.Inf(1)); got != 0 {
		t.Errorf("registryDeadline(+Inf) = %d, want 0 (none)", got)
	}
}
