package browsertest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/chrome"
)

// The live demo in each mode: with either mutex no update is lost, without
// one some are, the page shows the numbers it counted, and the main thread
// took part.
func TestDemo(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/demo/index.html")
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
			Live                                   []struct{ Expected, Lost int }
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
			// The live display, frame by frame: it must move, and under a mutex
			// it must never show a lost update.
			if len(got.Live) < 5 || got.Live[len(got.Live)-1].Expected <= got.Live[0].Expected {
				t.Errorf("%s: the live display did not move: %v", mode, got.Live)
			}
			for _, f := range got.Live {
				if mode != "none" && f.Lost != 0 {
					t.Errorf("%s: the live display showed %d lost updates (of %d) under a mutex", mode, f.Lost, f.Expected)
					break
				}
			}
			if mode == "none" && got.Lost == 0 {
				t.Error("no lock: no update was lost in 6 runs, so the demo shows nothing")
			}
		}
	})
}

// The pipeline scene: producers push through the bounded queue, the page
// consumes with Cond.waitAsync. Every item arrives once, the queue never
// holds more than it can, the page consumed, and it shows what it counted;
// once with the page slower than the producers (they wait for space), once
// faster (it waits for items).
func TestDemoPipeline(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/demo/index.html")
		if !eval[bool](p, `new Promise((resolve) => {
			const deadline = performance.now() + 20000;
			const poll = () => window.demoPipeline ? resolve(true) : performance.now() > deadline ? resolve(false) : setTimeout(poll, 10);
			poll();
		})`) {
			t.Fatalf("the pipeline scene did not become ready: %q", eval[string](p, `document.getElementById("pStatus").textContent`))
		}
		for _, c := range []struct {
			name           string
			workUs, pageUs int
		}{{"slow page", 0, 20}, {"slow producers", 100, 0}} {
			got := eval[struct {
				Produced, Consumed, Queued, Missing, Duplicates, MaxDepth, Cap int
				PageWaitedMs, ProducersWaitedMs, Fps                           float64
				Dom                                                            map[string]string
				Live                                                           []struct{ Depth, Produced, Consumed int }
			}](p, fmt.Sprintf(`demoPipeline.runFor(3, 1000, %d, %d)`, c.workUs, c.pageUs))
			t.Logf("%s: %d produced, %d consumed, %d missing, %d duplicates, deepest queue %d of %d; waited: page %.0f ms, producers %.0f ms; %v frames/s",
				c.name, got.Produced, got.Consumed, got.Missing, got.Duplicates, got.MaxDepth, got.Cap, got.PageWaitedMs, got.ProducersWaitedMs, got.Fps)
			if got.Consumed == 0 {
				t.Fatalf("%s: the page consumed nothing", c.name)
			}
			if got.Produced != got.Consumed || got.Queued != 0 || got.Missing != 0 || got.Duplicates != 0 {
				t.Errorf("%s: produced %d, consumed %d, %d left in the queue, %d missing, %d duplicates: not every item exactly once",
					c.name, got.Produced, got.Consumed, got.Queued, got.Missing, got.Duplicates)
			}
			if got.MaxDepth < 1 || got.MaxDepth > got.Cap {
				t.Errorf("%s: deepest queue %d, capacity %d", c.name, got.MaxDepth, got.Cap)
			}
			if c.pageUs > 0 && got.ProducersWaitedMs == 0 {
				t.Errorf("%s: no producer ever waited for space", c.name)
			}
			if c.workUs > 0 && got.PageWaitedMs == 0 {
				t.Errorf("%s: the page never waited for items", c.name)
			}
			want := map[string]string{"pProduced": strconv.Itoa(got.Produced), "pConsumed": strconv.Itoa(got.Consumed), "pQueued": "0", "pMissing": "0", "pDup": "0", "pCheck": "every item once"}
			for id, v := range want {
				if got.Dom[id] != v {
					t.Errorf("%s: the page shows %s = %q, want %q (%v)", c.name, id, got.Dom[id], v, got.Dom)
				}
			}
			// Live, frame by frame: it moves, the queue stays within its
			// capacity, and consumed never passes produced.
			if len(got.Live) < 5 || got.Live[len(got.Live)-1].Consumed <= got.Live[0].Consumed {
				t.Errorf("%s: the live display did not move: %v", c.name, got.Live)
			}
			for _, f := range got.Live {
				if f.Depth < 0 || f.Depth > got.Cap || f.Consumed > f.Produced {
					t.Errorf("%s: a frame showed depth %d (capacity %d), %d consumed of %d produced", c.name, f.Depth, got.Cap, f.Consumed, f.Produced)
					break
				}
			}
		}
	})
}

// A running demo, on screen: dist/demo.png and dist/demo-pipeline.png (the
// second scene), taken in Chromium through
// chromedp (the driverless channel cannot take screenshots).
func TestDemoScreenshot(t *testing.T) {
	if !selected("chromium") {
		t.Skip("needs chromium")
	}
	ctx, cancel, _, err := chrome.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	var problems []string
	var mu sync.Mutex
	chrome.OnProblem(ctx, func(msg string) { mu.Lock(); problems = append(problems, msg); mu.Unlock() })
	ctx, cancelRun := context.WithTimeout(ctx, 30*time.Second)
	defer cancelRun()
	for _, shot := range []struct{ query, file string }{
		{"start=sabmutex", "../dist/demo.png"},
		{"scene=pipeline", "../dist/demo-pipeline.png"},
	} {
		png, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			if _, err := chromedp.Navigate(isolated.URL+"/demo/index.html?"+shot.query)(ctx, tg); err != nil {
				return nil, err
			}
			time.Sleep(1500 * time.Millisecond)
			return chromedp.FullScreenshot(100)(ctx, tg)
		})
		if err != nil {
			t.Fatalf("screenshot of %s: %v", shot.query, err)
		}
		if err := os.WriteFile(shot.file, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("demo page console: %s", p)
	}
}
