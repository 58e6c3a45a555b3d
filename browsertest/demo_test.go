package browsertest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The live demo in each mode: with either mutex no update is lost, without
// one some are, the page shows the numbers it counted, and the main thread
// took part. A screenshot is saved to dist/demo.png.
func TestDemo(t *testing.T) {
	p := open(t, isolated.URL+"/demo/index.html")
	if !eval[bool](p, `new Promise((resolve) => {
		const deadline = performance.now() + 20000;
		const poll = () => window.demo ? resolve(true) : performance.now() > deadline ? resolve(false) : setTimeout(poll, 10);
		poll();
	})`) {
		t.Fatalf("the demo did not become ready: %q", eval[string](p, `document.getElementById("status").textContent`))
	}
	type shown struct {
		Expected, Actual, Lost, MainIncrements int
		Dom                                    map[string]string
	}
	runFor := func(mode string) shown {
		return eval[shown](p, `demo.runFor("`+mode+`", 3, 1000)`)
	}
	for _, mode := range []string{"sabmutex", "js", "none"} {
		if mode == "js" && noWaitAsync {
			continue // the plain-JS baseline's lockAsync needs Atomics.waitAsync
		}
		got := runFor(mode)
		// Without a lock, a run may happen to lose nothing on a loaded machine: try again.
		for try := 0; mode == "none" && got.Lost == 0 && try < 5; try++ {
			got = runFor(mode)
		}
		t.Logf("%s: %d increments, %d lost, %d by the main thread", mode, got.Expected, got.Lost, got.MainIncrements)
		if got.Dom["expected"] != strconv.Itoa(got.Expected) || got.Dom["actual"] != strconv.Itoa(got.Actual) || got.Dom["lost"] != strconv.Itoa(got.Lost) {
			t.Errorf("%s: the page shows %v, but counted expected %d, actual %d", mode, got.Dom, got.Expected, got.Actual)
		}
		if got.Expected == 0 || got.MainIncrements == 0 {
			t.Errorf("%s: %d increments, %d by the main thread: not everyone took part", mode, got.Expected, got.MainIncrements)
		}
		if mode != "none" && got.Lost != 0 {
			t.Errorf("%s: %d updates lost under a mutex", mode, got.Lost)
		}
		if mode == "none" && got.Lost == 0 {
			t.Error("no lock: no update was lost in 6 runs, so the demo shows nothing")
		}
	}
	// A running demo, on screen.
	eval[bool](p, `document.querySelector("input[name=mode][value=sabmutex]").checked = true, document.getElementById("toggle").click(), true`)
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	time.Sleep(700 * time.Millisecond)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile("../dist/demo.png", png, 0o644); err != nil {
		t.Fatal(err)
	}
	eval[bool](p, `document.getElementById("toggle").click(), true`)
}
