package browsertest

import (
	"testing"
)

// sabmutex.locks (#44, jsglue/locks.js): the cases of locks.html, adapted
// from web-platform-tests' web-locks suite, each against navigator.locks
// (the reference: a case that fails there is a wrong case, and fails this
// test) and against sabmutex.locks.
func TestLocksCases(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/locks.html")
		rows := eval[[]struct {
			Title, Native, Sab string
			NativeMs, SabMs    float64
		}](p, `locksCases()`)
		if len(rows) < 15 {
			t.Fatalf("%d cases ran", len(rows))
		}
		for _, r := range rows {
			switch {
			case r.Native != "ok":
				t.Errorf("%q fails on navigator.locks (a wrong case): %s", r.Title, r.Native)
			case r.Sab != "ok":
				t.Errorf("%q: sabmutex.locks: %s", r.Title, r.Sab)
			}
			if r.NativeMs > 0 || r.SabMs > 0 {
				t.Logf("%q: released %.0f ms (navigator.locks) and %.0f ms (sabmutex.locks) after the worker ended", r.Title, r.NativeMs, r.SabMs)
			}
		}
		t.Logf("%d cases, each against navigator.locks and sabmutex.locks", len(rows))
	})
}
