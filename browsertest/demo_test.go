package browsertest

import (
	"strconv"
	"testing"
)

// The demo page works: with the mutex no update is lost, without it some are,
// and the page shows the same numbers it computed.
func TestDemo(t *testing.T) {
	p := open(t, isolated.URL+"/demo/index.html")
	ready := eval[bool](p, `new Promise((resolve) => {
		const deadline = performance.now() + 20000;
		const poll = () => window.demoRun ? resolve(true) : performance.now() > deadline ? resolve(false) : setTimeout(poll, 10);
		poll();
	})`)
	if !ready {
		t.Fatalf("the demo did not become ready: status %q", eval[string](p, `document.getElementById("status").textContent`))
	}
	for _, useLock := range []bool{true, false} {
		got := eval[struct {
			Expected, Actual, Mine int
			Shown                  map[string]string
		}](p, `(async () => {
			document.getElementById("workers").value = 4;
			document.getElementById("n").value = 200000;
			document.getElementById("useLock").checked = `+strconv.FormatBool(useLock)+`;
			const r = await demoRun();
			r.shown = Object.fromEntries(["expected", "actual", "lost"].map((id) => [id, document.getElementById(id).textContent]));
			return r;
		})()`)
		lost := got.Expected - got.Actual
		if got.Shown["expected"] != strconv.Itoa(got.Expected) || got.Shown["actual"] != strconv.Itoa(got.Actual) || got.Shown["lost"] != strconv.Itoa(lost) {
			t.Errorf("useLock=%v: the page shows %v, but computed expected %d, actual %d", useLock, got.Shown, got.Expected, got.Actual)
		}
		if useLock && (lost != 0 || got.Mine == 0) {
			t.Errorf("with the mutex: %d updates lost, %d by the main thread", lost, got.Mine)
		}
		if !useLock && lost <= 0 {
			t.Errorf("without the mutex no update was lost (%d of %d): the demo shows nothing", got.Actual, got.Expected)
		}
	}
}
