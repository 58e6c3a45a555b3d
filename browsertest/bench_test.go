package browsertest

import (
	"testing"
	"time"
)

// The benchmark suite still runs end to end (quickly, and without judging
// speed: `make bench` does that), so `make bench` cannot rot unnoticed.
func TestBenchSuiteRuns(t *testing.T) {
	if !deep {
		t.Skip("make test-deep runs it (SABMUTEX_DEEP=1): a run of the benchmark suite, not a test of sabmutex")
	}
	forEngines(t, func(t *testing.T, e *engine) {
		if testing.Short() {
			t.Skip("runs the benchmark suite")
		}
		needsWaitAsync(t)
		// In one engine: the suite's own code is the same in each, and what
		// differs by engine is what the functional tests check; the quick run
		// took 35 s an engine, 99 s with the three at once on two cores.
		// make bench BROWSER=firefox (or webkit) runs it whole in the others.
		if e.name != "chromium" {
			t.Skip("the benchmark suite's end-to-end check runs in Chromium; make bench BROWSER=" + e.name + " runs it here")
		}
		p := e.open(t, isolated.URL+"/demo/bench.html")
		// Every section, quickly: about 35 s an engine on a quiet machine,
		// over a minute with the three at once on a loaded one.
		got := evalWithin[struct {
			Metrics []struct {
				ID       string
				Sabmutex *struct{ Median float64 }
			}
		}](p, `new Promise((resolve) => { const go = () => window.runBench ? resolve() : setTimeout(go, 10); go(); })
			.then(() => runBench({ quick: true }))`, 5*time.Minute)
		if len(got.Metrics) < 12 {
			t.Fatalf("the suite reported %d metrics", len(got.Metrics))
		}
		for _, m := range got.Metrics {
			if m.Sabmutex == nil && m.ID != "wasm-brotli" {
				t.Errorf("%s: no figure for sabmutex", m.ID)
			}
		}
	})
}
