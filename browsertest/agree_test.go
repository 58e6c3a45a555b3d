package browsertest

import "testing"

// The glue's inlined steps (tryLock's and lockAsync's fast paths; unlock's
// 1 -> 0 and 2 -> 0 + wake one) against Go's own, from every word and
// holder: the same result, slots and wake-ups (testdata/harness.js).
func TestGlueAgreesWithCore(t *testing.T) {
	needsWaitAsync(t) // its sleepers; the steps compared are the same in both passes
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Cases       int
			Differences []string
		}](p, `glueCoreAgreement()`)
		for _, d := range got.Differences {
			t.Error(d)
		}
		if got.Cases < 234 {
			t.Errorf("only %d cases compared", got.Cases)
		}
		t.Logf("%d cases, %d differences", got.Cases, len(got.Differences))
	})
}

// The family's inlined fast paths (RWMutex, Semaphore, WaitGroup, Cond,
// Channel) against Go's own steps, from legal and illegal slots
// (testdata/family.js).
func TestFamilyGlueAgreesWithCore(t *testing.T) {
	needsWaitAsync(t)
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Cases       int
			Differences []string
		}](p, `familyGlueCoreAgreement()`)
		for _, d := range got.Differences {
			t.Error(d)
		}
		if got.Cases < 450 {
			t.Errorf("only %d cases compared", got.Cases)
		}
		t.Logf("%d cases, %d differences", got.Cases, len(got.Differences))
	})
}
