// Package browsertest drives headless Chromium with chromedp against the
// built dist/, on pages served by web/serve with and without cross-origin
// isolation. Any console error or uncaught exception on a page fails its test.
package browsertest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/chrome"
	"github.com/sabmutex/sabmutex/web/serve"
)

// noWaitAsync is the second pass of the suite (make browsertest runs both):
// every page loses Atomics.waitAsync before any script runs, as in browsers
// that lack it, so lockAsync must fall back to its helper worker.
var noWaitAsync = os.Getenv("SABMUTEX_NO_WAITASYNC") == "1"

// needsWaitAsync skips a test of the plain-JS baseline, which uses
// Atomics.waitAsync itself, in the second pass.
func needsWaitAsync(t *testing.T) {
	if noWaitAsync {
		t.Skip("the plain-JS baseline it compares with needs Atomics.waitAsync")
	}
}

var (
	isolated   *httptest.Server // COOP/COEP: cross-origin isolated
	plain      *httptest.Server // the same files without those headers
	isoFiles   *serve.Server
	browserCtx context.Context
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := os.Stat("../dist/sabmutex.wasm"); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: ../dist/sabmutex.wasm is missing: run `make` (or `make test`) first")
		return 1
	}
	mounts := map[string]string{"/": "testdata", "/dist/": "../dist", "/demo/": "../web/static", "/bench/": "../web/bench"}
	isoFiles = serve.New(mounts, true)
	isolated = httptest.NewServer(isoFiles)
	defer isolated.Close()
	plain = httptest.NewServer(serve.New(mounts, false))
	defer plain.Close()

	ctx, cancel, ua, err := chrome.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer cancel()
	browserCtx = ctx
	fmt.Println("browser:", ua)
	if noWaitAsync {
		fmt.Println("pass without Atomics.waitAsync: lockAsync uses its helper worker")
	}
	return m.Run()
}

// page is one tab. Console errors and uncaught exceptions on it fail the test,
// except those matching an allowed substring.
type page struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
	allowed  []string
}

// open loads url in a new tab.
func open(t *testing.T, url string, allowed ...string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	p := &page{t: t, ctx: ctx, allowed: allowed}
	chrome.OnProblem(ctx, p.record)
	t.Cleanup(func() {
		p.checkConsole()
		cancel()
	})
	navCtx, cancelNav := context.WithTimeout(ctx, 30*time.Second)
	defer cancelNav()
	if noWaitAsync {
		err := chromedp.Do(navCtx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument,
				cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: "delete Atomics.waitAsync;"})
			return err
		}))
		if err != nil {
			t.Fatalf("removing Atomics.waitAsync: %v", err)
		}
	}
	if err := chromedp.Do(navCtx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	return p
}

func (p *page) record(msg string) {
	for _, a := range p.allowed {
		if strings.Contains(msg, a) {
			return
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.problems = append(p.problems, msg)
}

func (p *page) checkConsole() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.problems {
		p.t.Errorf("page console: %s", m)
	}
	p.problems = nil
}

// evalTimeout bounds every evaluation: a hung lock fails the test instead of CI.
const evalTimeout = 60 * time.Second

// eval runs a JavaScript expression on the page, awaits it if it is a promise,
// and returns its value as T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, evalTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("evaluating %s\n: %v", expr, err)
	}
	p.checkConsole()
	return v
}
