// Package browsertest runs sabmutex's browser tests against the built dist/,
// on pages served by internal/testing/serve with and without cross-origin isolation, in
// every engine that internal/testing/browsers can start (Chromium, Firefox,
// WebKitGTK; BROWSERS=chromium,firefox picks): each test runs once per
// engine, as a subtest (TestX/chromium, TestX/firefox, TestX/webkit). The
// test code runs in the page; Go opens the page and evaluates expressions
// there over internal/testing/browsers' driverless channel. A console.error, an
// uncaught exception or an unhandled rejection on a page fails its test,
// and so does an expression that never settles.
package browsertest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/testing/browsers"
	"github.com/sabmutex/sabmutex/internal/testing/chrome"
	"github.com/sabmutex/sabmutex/internal/testing/serve"
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

// sameWithoutWaitAsync skips, in the second pass, a test whose code path
// does not differ without Atomics.waitAsync (why says how): the second pass
// is for what waits on a page or in a task, not a run of everything again.
func sameWithoutWaitAsync(t *testing.T, why string) {
	if noWaitAsync {
		t.Skip("the same without Atomics.waitAsync: " + why)
	}
}

// deep is make test-deep (SABMUTEX_DEEP=1): its pass without
// Atomics.waitAsync runs every test that pass can differ in, where make
// test's runs those of waitsWithoutWaitAsync only.
var deep = os.Getenv("SABMUTEX_DEEP") == "1"

// trimmedPass is make test's pass without Atomics.waitAsync: it runs the
// tests of waitsWithoutWaitAsync, and leaves out of them what runs there as
// in the first pass (make test-deep's pass runs everything).
var trimmedPass = noWaitAsync && !deep

// waitsWithoutWaitAsync is make test's pass without Atomics.waitAsync: the
// tests that wait in each way the helper worker changes, on the page (each
// primitive's async calls, with timeouts and signals, their first wait and
// their fairness, a wake-up handed off or sent by the release of a dead
// holder), a Go agent's goroutines (go-agent-worker.js removes
// Atomics.waitAsync itself), locks.request and select. The rest of that
// pass makes the same async calls inside other scenarios (the dead
// holders, debug mode, the demo, the README's examples, the named
// primitives): make test-deep runs them, and CI runs make test-deep
// (docs/decisions/suite-time.md). The launcher removes Atomics.waitAsync on
// pages only: JavaScript workers keep theirs in both passes, so a worker's
// async waits on the helper path are not tested yet (the same file, the
// fourth stop).
var waitsWithoutWaitAsync = map[string]bool{
	"TestFamilyCases": true, "TestAcquireHandles": true, "TestHammer": true, "TestTaskHammer": true, "TestSiblingTasks": true,
	"TestAbortSignal": true, "TestPreAbortedSignalWins": true, "TestAbortAfterBarrierCompletedPasses": true,
	"TestTryLockAndTimeouts": true, "TestFirstTimeoutOnTime": true, "TestIdleWorkerLockAsyncTimesOut": true,
	"TestFirstAsyncWaitServed": true, "TestStarvation": true, "TestNoFalseDeadlock": true,
	"TestRWMutexReadersWriters": true, "TestProducerConsumer": true, "TestSemaphoreGauge": true,
	"TestBarrierGenerations": true, "TestWaitGroupRounds": true, "TestOnceRace": true,
	"TestChannelTraffic": true, "TestChannelSelect": true, "TestChannelClose": true, "TestChannelTaskHandOff": true,
	"TestGoAndJSQueue": true, "TestGoWorkersShareTheMutex": true, "TestLocksCases": true, "TestLocksAtSize": true, "TestLocksQueuedHandOff": true, "TestLocksRun": true, "TestMutexTaskHandOff": true, "TestRWMutexTaskHandOff": true, "TestRWMutexReadersHandOff": true, "TestWaitGroupTaskHandOff": true, "TestOnceTaskHandOff": true, "TestBarrierTaskHandOff": true, "TestSemaphoreWorkerBehindPageStream": true, "TestSemaphoreTaskHandOff": true, "TestDebugHeldTooLongEveryTime": true, "TestHelpersBounded": true, "TestLocksGoAgent": true,
	"TestDeadHolderFreed": true, "TestLostHandOff": true,
}

// inThisPass skips t where this pass leaves it out: the pass without
// Atomics.waitAsync of make test runs waitsWithoutWaitAsync only.
func inThisPass(t *testing.T) {
	t.Helper()
	if top, _, _ := strings.Cut(t.Name(), "/"); trimmedPass && !waitsWithoutWaitAsync[top] {
		t.Skip("make test's pass without Atomics.waitAsync runs the tests of waitsWithoutWaitAsync; make test-deep runs this one")
	}
}

var (
	driver   *browsers.Driver
	isolated *httptest.Server // COOP/COEP: cross-origin isolated
	plain    *httptest.Server // the same files without those headers
	isoFiles *serve.Server
	engines  []*engine // the running browsers, in browsers.Engines order
)

// engine is one running browser.
type engine struct {
	name string
	b    *browsers.Browser
}

func TestMain(m *testing.M) {
	code := run(m)
	if over := overCap(); over != "" {
		fmt.Println("browsertest:", over)
		code = 1
	}
	writeSummary(code)
	os.Exit(code)
}

func run(m *testing.M) int {
	if _, err := os.Stat("../dist/sabmutex.wasm"); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest: ../dist/sabmutex.wasm is missing: run `make` (or `make test`) first")
		return 1
	}
	readme, err := readmeSite()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	defer os.RemoveAll(readme)
	mounts := map[string]string{"/": "testdata", "/dist/": "../dist", "/demo/": "../web/static", "/bench/": "../web/bench",
		"/node_modules/multithreading/": "../node_modules/multithreading", "/readme/": readme, "/lib/": "../pools/node_modules",
		"/node_modules/workerpool/": "../pools/node_modules/workerpool", "/node_modules/async-mutex/": "../node_modules/async-mutex"}
	driver = browsers.NewDriver()
	isoFiles = serve.New(mounts, true)
	isolated = httptest.NewServer(driver.WrapIsolated(isoFiles))
	defer isolated.Close()
	plain = serveWithDriver(serve.New(mounts, false))
	defer plain.Close()

	names, err := browsers.Selected()
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		return 1
	}
	if noWaitAsync {
		fmt.Println("pass without Atomics.waitAsync: lockAsync uses its helper worker")
	}
	for _, name := range names {
		b, err := startEngine(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
			stopAll()
			return 1
		}
		engines = append(engines, &engine{name: name, b: b})
		v, _ := browsers.Version(name)
		fmt.Printf("%s: %s (started in %v): %s\n", name, v, b.StartupTime().Round(time.Millisecond), b.UserAgent())
	}
	defer stopAll()
	if !deep {
		allEnginesAtOnce(len(engines))
	}
	// A run stopped by a signal (kill of go test's process group, ^C)
	// stops its browsers too: each runs in a process group of its own,
	// which the signal does not reach, and would run on.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-stop
		stopAll()
		os.Exit(2)
	}()
	return m.Run()
}

// allEnginesAtOnce lets each test's engines run its parts all at once
// (forEngines), n of them, unless go test was given -parallel: its
// default, GOMAXPROCS, ran two engines and then the third on two cores, a
// test taking two engines' time where it could take one's
// (docs/decisions/suite-time.md: the passes 442 -> 342 s and 160 -> 135
// s). The tests that time what other threads do run their engines in turn
// (forEnginesInTurn), as before. Not in make test-deep's pass
// (SABMUTEX_DEEP), which runs without Atomics.waitAsync the timing tests
// that make test runs with it only: they keep the load they were tuned
// for.
func allEnginesAtOnce(n int) {
	flag.Parse() // (m.Run parses them again: no harm)
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && n > 1 {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

func stopAll() {
	if b := &chromedpBrowser; b.cancel != nil {
		b.cancel()
	}
	for _, e := range engines {
		if err := e.b.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest:", err)
		}
	}
}

// chromedpBrowser is the Chromium that chromedp drives for the tests that
// need what the driverless channel lacks (TestDemoScreenshot's screenshots,
// TestCIRecipe's recipe): started once, by the first of them, and stopped
// with the engines (stopAll).
var chromedpBrowser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

// chromedpTab is a tab of its own in that Chromium, closed when t ends.
func chromedpTab(t *testing.T) context.Context {
	t.Helper()
	b := &chromedpBrowser
	b.once.Do(func() { b.ctx, b.cancel, _, b.err = chrome.Start(context.Background()) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	return ctx
}

// serveWithDriver serves h (HTML with driver.js in it) and the driver.
func serveWithDriver(h http.Handler) *httptest.Server {
	return httptest.NewServer(driver.Wrap(h))
}

// selected reports whether engine name runs in this pass.
func selected(name string) bool {
	for _, e := range engines {
		if e.name == name {
			return true
		}
	}
	return false
}

// forEngines runs f once per engine, as the subtest TestX/<engine>; the
// engines run at once (each its own browser, tab and pages), so a test
// takes as long as its slowest engine, not as the three together: the
// suite's time halved. f must keep its state to itself, as every test's
// does (what the engines share, the servers and the driver, is safe for
// concurrent use; a count kept by the server is kept per engine: WasmGets).
func forEngines(t *testing.T, f func(t *testing.T, e *engine)) {
	t.Helper()
	inThisPass(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			f(t, e)
		})
	}
}

// forEnginesInTurn is forEngines one engine after the other, for a test
// that counts what other threads did while one waited (TestStarvation),
// or times a wait that another thread ends (TestFirstTimeoutOnTime):
// three engines' busy workers at once on two cores leave a waiter off the
// CPU for cycles that say nothing of the primitive.
func forEnginesInTurn(t *testing.T, f func(t *testing.T, e *engine)) {
	t.Helper()
	inThisPass(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// page is the page open in an engine's tab. Console errors, uncaught
// exceptions and unhandled rejections on it fail the test, except those
// matching an allowed substring.
type page struct {
	t       *testing.T
	e       *engine
	p       *browsers.Page
	allowed []string
	stuck   bool // left behind with its engine (evalRestarting): not checked or closed
}

// openTimeout bounds the loading of a page.
const openTimeout = 30 * time.Second

// open loads url in e's tab (the browser's one tab: a page opened before is
// closed), for the rest of the test.
func (e *engine) open(t *testing.T, url string, allowed ...string) *page {
	t.Helper()
	bp, err := e.openOnce(url)
	if errors.Is(err, browsers.ErrStuck) || errors.Is(err, browsers.ErrCrashed) || (e.name == "webkit" && errors.Is(err, browsers.ErrNoDriver)) {
		// The tab is stuck on the previous test's page, whose results were
		// all in (WebKitGTK's MiniBrowser did this now and then in the pass
		// without waitAsync, after pages with helper workers), or stuck
		// while loading this one (WebKit, once in a clean-clone run: the
		// page's driver.js never connected): a stuck tab is out of reach
		// (internal/testing/browsers: Open), so start the engine anew and load the
		// page once more. So too when the engine said the tab's process
		// crashed (ErrCrashed). Said in the log, and counted in the pass's
		// summary (restartCap a pass, crashCap for crashes); a page that
		// fails to load twice fails.
		if err = e.restart(t, err.Error()); err == nil {
			bp, err = e.openOnce(url)
		}
	}
	if err != nil {
		t.Fatalf("%s: loading %s: %v", e.name, url, err)
	}
	p := &page{t: t, e: e, p: bp, allowed: allowed}
	t.Cleanup(func() {
		if p.stuck {
			return
		}
		p.checkConsole()
		err := bp.Close()
		if err != nil && (errors.Is(err, browsers.ErrCrashed) || e.name == "webkit" && errors.Is(err, browsers.ErrNoCloseAck)) {
			// WebKitGTK's stuck tab (above), met at Close (on the Go
			// demo's page of short-lived workers, without waitAsync,
			// beside a busy loop): the next open would find it stuck. The
			// page's results and console were all in; the engine is
			// started anew now, said and counted as there (a crash the
			// engine said, ErrCrashed, the same way).
			if err := e.restart(t, fmt.Sprintf("closing %s: %v", url, err)); err != nil {
				t.Errorf("%s: restarting: %v", e.name, err)
			}
			return
		}
		if err != nil {
			t.Errorf("%s: closing %s: %v", e.name, url, err)
		}
	})
	return p
}

func (e *engine) openOnce(url string) (*browsers.Page, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	return e.b.Open(ctx, url)
}

// restartCap is how many restarts each engine may have in a pass (one go
// test process). A restart forgives a tab that WebKitGTK left stuck, but a
// hang of ours that stops a page's thread looks the same from here: one a
// pass is what the stuck tab has needed, and a second fails the pass.
const restartCap = 1

// crashCap is how many restarts after a crash of the tab's process each
// engine may have in a pass, counted apart from restartCap's: the engine
// said that process crashed (browsers.ErrCrashed), which no hang of ours
// can make it say. WebKitGTK 2.50's web process aborts now and then when a
// page's worker is terminated (a release assertion in JavaScriptCore's
// VMTraps::deferTerminationSlow, WebKit bug 305677, made a debug one again
// upstream in 305748@main): the Go demo's test met it about once a pass
// (docs/decisions/webkit-crash.md).
const crashCap = 5

// tally holds what this pass forgave: the reruns of a check that ended late
// (untilServed, the demo's page that hardly ran) and the engines' restarts,
// for the summary line that make test prints at its end.
var tally struct {
	sync.Mutex
	reruns   []string            // one entry a rerun: the test's name
	restarts map[string][]string // per engine, each restart's reason
	crashes  map[string][]string // per engine, the reason of each restart after a crash
}

// noteRerun counts one rerun of t's check, and logs why.
func noteRerun(t *testing.T, why string) {
	t.Helper()
	t.Logf("running again: %s", why)
	tally.Lock()
	tally.reruns = append(tally.reruns, t.Name())
	tally.Unlock()
}

// restart starts e anew after a stuck tab or a crash of the tab's process
// (open, its page's Close, evalRestarting): said in t's log, why, and
// counted for the summary, a crash (the engine said so) apart. A restart
// over restartCap, or over crashCap after crashes, fails t, with the
// reason of each.
func (e *engine) restart(t *testing.T, why string) error {
	t.Helper()
	t.Logf("%s: %s; restarting %s", e.name, why, e.name)
	counts, limit, what := &tally.restarts, restartCap, "restarted"
	select {
	case <-e.b.Crashed():
		counts, limit, what = &tally.crashes, crashCap, "restarted after a crash of its tab's process"
	default:
	}
	tally.Lock()
	if *counts == nil {
		*counts = map[string][]string{}
	}
	(*counts)[e.name] = append((*counts)[e.name], t.Name()+": "+why)
	reasons := (*counts)[e.name]
	tally.Unlock()
	if len(reasons) > limit {
		t.Errorf("%s: %s %d times in this pass, over the cap of %d: %s", e.name, what, len(reasons), limit, strings.Join(reasons, "; "))
	}
	e.b.Stop()
	var err error
	e.b, err = startEngine(e.name)
	return err
}

// overCap names each engine restarted more than restartCap times in this
// pass, with each restart's reason; "" when none was.
func overCap() string {
	tally.Lock()
	defer tally.Unlock()
	var over []string
	for _, name := range browsers.Engines {
		if rs := tally.restarts[name]; len(rs) > restartCap {
			over = append(over, fmt.Sprintf("%s restarted %d times in this pass, over the cap of %d: %s", name, len(rs), restartCap, strings.Join(rs, "; ")))
		}
		if rs := tally.crashes[name]; len(rs) > crashCap {
			over = append(over, fmt.Sprintf("%s restarted %d times after a crash of its tab's process in this pass, over the cap of %d: %s", name, len(rs), crashCap, strings.Join(rs, "; ")))
		}
	}
	return strings.Join(over, "; ")
}

// summaryFile is where a pass writes its summary line, under dist/: make
// browsertest prints both passes' lines after the second, at the end of
// make test's output.
func summaryFile() string {
	if noWaitAsync {
		return "../dist/browsertest-no-waitasync.summary"
	}
	return "../dist/browsertest-waitasync.summary"
}

// writeSummary prints this pass's summary line and writes it to
// summaryFile: the pass's outcome, its reruns (each test's name and how
// many) and its restarts per engine.
func writeSummary(code int) {
	tally.Lock()
	defer tally.Unlock()
	pass := "with Atomics.waitAsync"
	if noWaitAsync {
		pass = "without Atomics.waitAsync"
	}
	outcome := "ok"
	if code != 0 {
		outcome = "FAIL"
	}
	counts := map[string]int{}
	var names []string
	for _, n := range tally.reruns {
		if counts[n] == 0 {
			names = append(names, n)
		}
		counts[n]++
	}
	reruns := count(len(tally.reruns), "rerun")
	if len(names) > 0 {
		var each []string
		for _, n := range names {
			each = append(each, fmt.Sprintf("%s ×%d", n, counts[n]))
		}
		reruns += " (" + strings.Join(each, ", ") + ")"
	}
	restarts := perEngine(tally.restarts, "restart", restartCap)
	if len(tally.crashes) > 0 {
		restarts += "; " + perEngine(tally.crashes, "restart after a crash", crashCap)
	}
	line := fmt.Sprintf("browsertest, the pass %s: %s; %s; %s", pass, outcome, reruns, restarts)
	fmt.Println(line)
	if err := os.WriteFile(summaryFile(), []byte(line+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
	}
}

// perEngine is the total of counts in words, then each engine's and the
// cap: "2 restarts (webkit 2; at most 1 per engine)".
func perEngine(counts map[string][]string, thing string, limit int) string {
	var engines []string
	total := 0
	for _, name := range browsers.Engines {
		if n := len(counts[name]); n > 0 {
			engines = append(engines, fmt.Sprintf("%s %d", name, n))
			total += n
		}
	}
	s := count(total, thing)
	if total > 0 {
		s += " (" + strings.Join(engines, ", ") + fmt.Sprintf("; at most %d per engine)", limit)
	}
	return s
}

// count is n things, in words: "1 rerun", "2 reruns".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func startEngine(name string) (*browsers.Browser, error) {
	return browsers.Start(context.Background(), name, driver, isolated.URL, browsers.Options{NoWaitAsync: noWaitAsync})
}

// checkConsole fails the test for every problem the page reported.
func (p *page) checkConsole() {
	p.t.Helper()
next:
	for _, msg := range p.p.Problems() {
		for _, a := range p.allowed {
			if strings.Contains(msg, a) {
				continue next
			}
		}
		p.t.Errorf("%s: page console: %s", p.e.name, msg)
	}
}

// untilTrue is an expression that resolves true once cond (JavaScript) is
// truthy on the page, looked at every 10 ms, or false after 20 s.
func untilTrue(cond string) string {
	return `new Promise((resolve) => {
		const deadline = performance.now() + 20000;
		const poll = () => (` + cond + `) ? resolve(true) : performance.now() > deadline ? resolve(false) : setTimeout(poll, 10);
		poll();
	})`
}

// becomes reports whether cond became truthy on the page within 20 s.
func (p *page) becomes(cond string) bool {
	p.t.Helper()
	return eval[bool](p, untilTrue(cond))
}

// evalRestarting is eval on a page that open loads from url, but for a
// WebKit page whose tab is stuck: WebKitGTK's MiniBrowser leaves a tab
// stuck now and then in the pass without Atomics.waitAsync (as open says),
// and a page of short-lived workers (the debug tests', the Go demo's) met
// it once in three runs of the suite (the Go demo's in 2 of 30 runs of its
// test, with the lock and without it, BroadcastChannel or not). Stuck means
// the page no longer runs even `1` (its main thread is held inside the
// engine; sabmutex never blocks a page's main thread): then the engine is
// started anew and the page loaded and the expression run once more, said
// in the log and counted with open's restarts. A page that still answers
// while its expression never settles is a hang of ours, and fails; so does
// a page that sticks twice. The stuck tab, caught once with a core dump,
// was WebKitGTK's web process aborted on a worker's termination (crashCap):
// when the engine says so (browsers.ErrCrashed) the expression runs again
// at once, counted as a crash, instead of after its deadline.
func evalRestarting[T any](t *testing.T, e *engine, url, expr string, allowed ...string) T {
	t.Helper()
	p := e.open(t, url, allowed...)
	if e.name != "webkit" {
		return eval[T](p, expr)
	}
	for stuckOnce := false; ; {
		ctx, cancel := context.WithTimeout(context.Background(), evalTimeout)
		v, err := browsers.Eval[T](ctx, p.p, expr)
		cancel()
		crashed := errors.Is(err, browsers.ErrCrashed)
		stuck := !crashed && !stuckOnce && errors.Is(err, context.DeadlineExceeded) && stuckTab(p)
		if !crashed && !stuck {
			p.checkConsole()
			if err != nil {
				t.Fatalf("%s: evaluating %s\n: %v", e.name, expr, err)
			}
			return v
		}
		// Again on a new engine: after a crash as long as the pass's
		// crashCap allows (restart fails t past it), after a stuck tab once.
		p.stuck = true
		why := fmt.Sprintf("%v, and the tab no longer runs anything (the expression runs again)", err)
		if crashed {
			why = "the tab's process crashed (the expression runs again)"
		}
		stuckOnce = stuckOnce || stuck
		if err := e.restart(t, why); err != nil {
			t.Fatalf("%s: restarting: %v", e.name, err)
		}
		if t.Failed() {
			t.FailNow()
		}
		p = e.open(t, url, allowed...)
	}
}

// stuckTab says whether p's tab no longer runs a script (not `1` in 5 s).
func stuckTab(p *page) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := browsers.Eval[int](ctx, p.p, "1")
	return err != nil
}

// evalTimeout bounds every evaluation: a hung lock fails the test instead of CI.
const evalTimeout = 60 * time.Second

// eval runs a JavaScript expression on the page, awaits it if it is a promise,
// and returns its value as T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	return evalWithin[T](p, expr, evalTimeout)
}

// evalWithin is eval with a deadline of its own, for an expression that runs
// longer than evalTimeout by design (the benchmark suite's quick run).
func evalWithin[T any](p *page, expr string, timeout time.Duration) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	v, err := browsers.Eval[T](ctx, p.p, expr)
	p.checkConsole()
	if err != nil {
		var js *browsers.EvalError
		if errors.As(err, &js) {
			p.t.Fatalf("%s: evaluating %s\n: exception %s", p.e.name, expr, js.Message)
		}
		p.t.Fatalf("%s: evaluating %s\n: %v", p.e.name, expr, err)
	}
	return v
}

// Every name in waitsWithoutWaitAsync is a test of this package: a test
// renamed would drop out of make test's second pass without a word.
func TestSecondPassNamesTests(t *testing.T) {
	files, _ := filepath.Glob("*_test.go")
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for name := range waitsWithoutWaitAsync {
		if !strings.Contains(src.String(), "\nfunc "+name+"(t *testing.T) {") {
			t.Errorf("waitsWithoutWaitAsync names %s, which is no test of browsertest", name)
		}
	}
}
