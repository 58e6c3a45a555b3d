package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/testing/chrome"
)

// TestReadmeDebug: the README's "Debugging" example in every engine: the
// workers that take A and B in both orders are reported once, with both
// workers and the lines of their lock calls; in one order, never.
func TestReadmeDebug(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		for _, c := range []struct {
			orders string
			want   int
		}{{"ab,ba", 1}, {"ab,ab", 0}} {
			p := e.open(t, isolated.URL+"/readme/debug.html?orders="+c.orders, "sabmutex: lock-order inversion")
			if !p.becomes(`document.querySelector("#out").textContent === "done"`) {
				t.Fatalf("%s: the page did not finish", c.orders)
			}
			got := eval[[]report](p, `new Promise((r) => setTimeout(() => r(window.sabmutexReports), 1200))`)
			if len(got) != c.want {
				t.Fatalf("%s: %d reports, want %d: %+v", c.orders, len(got), c.want, got)
			}
			if c.want == 1 && (!strings.Contains(got[0].Message, `("worker 1")`) || !strings.Contains(got[0].Message, `("worker 2")`) ||
				strings.Count(got[0].Message, "debug-worker.js:") != 4) {
				t.Errorf("%s: report %q: want both workers and the four sites in debug-worker.js", c.orders, got[0].Message)
			}
		}
	})
}

// #region ci-recipe
// sabmutexReports is what the page's onReport gathered in
// window.sabmutexReports, once the reports of the last second are in.
func sabmutexReports(ctx context.Context) ([]string, error) {
	time.Sleep(1200 * time.Millisecond) // reports arrive within about a second
	return chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.sabmutexReports.map((r) => r.message)`))
}

// In the test, after the page's work:
//
//	if reports, err := sabmutexReports(ctx); err != nil || len(reports) > 0 {
//		t.Fatalf("sabmutex reports: %v %v", reports, err)
//	}
// #endregion

// TestCIRecipe runs the README's CI recipe (chromedp) on the example: it
// fails the run whose workers take A and B in both orders. (That the run
// which takes them in one order makes no report, in Chromium too, is
// TestReadmeDebug's: the recipe only reads what the page gathered.)
func TestCIRecipe(t *testing.T) {
	sameWithoutWaitAsync(t, "the README's CI recipe runs Chromium, which has Atomics.waitAsync")
	if _, err := chrome.Find(); err != nil {
		t.Skip(err)
	}
	ctx, cancelTimeout := context.WithTimeout(chromedpTab(t), 60*time.Second)
	defer cancelTimeout()
	const orders = "ab,ba"
	_, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (bool, error) {
		if _, err := chromedp.Navigate(isolated.URL+"/readme/debug.html?orders="+orders)(ctx, tg); err != nil {
			return false, err
		}
		return chromedp.Evaluate[bool](untilTrue(`document.querySelector("#out").textContent === "done"`), chromedp.EvalAwaitPromise)(ctx, tg)
	})
	if err != nil {
		t.Fatalf("%s: %v", orders, err)
	}
	reports, err := sabmutexReports(ctx)
	if err != nil {
		t.Fatalf("%s: %v", orders, err)
	}
	if len(reports) == 0 {
		t.Errorf("%s: the recipe found no report; want a failing run", orders)
	}
	t.Logf("%s: %s", orders, fmt.Sprint(reports))
}
