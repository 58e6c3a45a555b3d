package browsertest

import (
	"fmt"
	"testing"
	"time"
)

// The soak, in each engine: 7 workers and the main thread for 5 s (1 s with -short), every
// way of taking the mutex mixed, an invariant checked in every critical
// section, exact totals at the end, and nothing left waiting.
func TestSoak(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		d := 5 * time.Second
		if testing.Short() {
			d = time.Second
		}
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Total, A, B, Violations, Recorded, Word int
			PerAgent                                []int
		}](p, fmt.Sprintf(`soak({ workers: 7, ms: %d, seed: %d })`, d.Milliseconds(), time.Now().UnixNano()%1000000))
		fmt.Printf("soak: %d acquisitions in %v by 7 workers and the main thread %v\n", got.Total, d, got.PerAgent)
		if got.Violations != 0 {
			t.Errorf("%d critical sections saw the counters not one apart: two agents were inside at once", got.Violations)
		}
		if got.A != got.Total || got.B != got.Total+1 || got.Recorded != got.Total {
			t.Errorf("totals: a = %d, b = %d, recorded %d, for %d acquisitions", got.A, got.B, got.Recorded, got.Total)
		}
		if got.Word != 0 {
			t.Errorf("the lock word is %d at the end, want 0", got.Word)
		}
		for i, n := range got.PerAgent {
			if n == 0 {
				t.Errorf("agent %d never got the mutex in %v", i, d)
			}
		}
	})
}
