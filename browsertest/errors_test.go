package browsertest

import (
	"strings"
	"testing"
)

type jsError struct {
	Name, Message string
}

// checkError fails unless got is an error of the given type whose message
// starts with "sabmutex:" and contains every part.
func checkError(t *testing.T, what string, got *jsError, name string, parts ...string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no error, want %s", what, name)
		return
	}
	if got.Name != name || !strings.HasPrefix(got.Message, "sabmutex: ") {
		t.Errorf("%s: %s %q, want a %s starting with \"sabmutex: \"", what, got.Name, got.Message, name)
		return
	}
	for _, part := range parts {
		if !strings.Contains(got.Message, part) {
			t.Errorf("%s: message %q does not say %q", what, got.Message, part)
		}
	}
}

const isolationHeaders = "`Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`"

func TestBadInputGivesClearErrors(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		eval[bool](p, `(async () => {
			await sabmutex.init();
			window.sab = new SharedArrayBuffer(16);
			window.words = new Int32Array(sab);
			window.m = new sabmutex.Mutex(sab, 1);
			return true;
		})()`)
		for _, c := range []struct {
			expr, name string
			parts      []string
		}{
			{`new sabmutex.Mutex(new ArrayBuffer(16))`, "TypeError", []string{"SharedArrayBuffer", "cross-origin isolated", isolationHeaders}},
			{`new sabmutex.Mutex(new Int32Array(4))`, "TypeError", []string{"shared", isolationHeaders}},
			{`new sabmutex.Mutex(new Uint8Array(sab))`, "TypeError", []string{"Uint8Array", "Int32Array"}},
			{`new sabmutex.Mutex(new Float64Array(sab))`, "TypeError", []string{"Float64Array", "Int32Array"}},
			{`new sabmutex.Mutex([0, 0])`, "TypeError", []string{"SharedArrayBuffer", "got Array"}},
			{`new sabmutex.Mutex()`, "TypeError", []string{"got undefined"}},
			{`new sabmutex.Mutex(sab, -1)`, "RangeError", []string{"from 0 to 2", "got -1"}},
			{`new sabmutex.Mutex(sab, 1.5)`, "RangeError", []string{"whole number", "got 1.5"}},
			{`new sabmutex.Mutex(sab, 3)`, "RangeError", []string{"Mutex.SLOTS (2)", "memory of 4", "got 3"}},
			{`new sabmutex.Mutex(new Int32Array(sab, 8), 1)`, "RangeError", []string{"from 0 to 0", "memory of 2"}},
			{`new sabmutex.Mutex(sab, NaN)`, "RangeError", []string{"got NaN"}},
			// A memory too small at any index says what it needs (issue 45, point 2).
			{`new sabmutex.Channel(new SharedArrayBuffer(64), 0, 4, 16)`, "RangeError", []string{"sabmutex: a Channel of capacity 4 and 16-byte messages needs 480 bytes (120 int32 slots: Channel.slotsFor(4, 16)); this SharedArrayBuffer has 64 bytes, too few at any index: give it a larger SharedArrayBuffer"}},
			{`new sabmutex.RWMutex(new Int32Array(sab, 8))`, "RangeError", []string{"an RWMutex needs 16 bytes (4 int32 slots: RWMutex.SLOTS); this Int32Array has 8 bytes"}},
			{`new sabmutex.Semaphore(new SharedArrayBuffer(8, { maxByteLength: 64 }), 0, 1)`, "RangeError", []string{"a Semaphore needs 12 bytes", "has 8 bytes", "grow it first (it may grow to 64 bytes)"}},
			{`new sabmutex.WaitGroup(new SharedArrayBuffer(0))`, "RangeError", []string{"a WaitGroup needs 4 bytes", "has 0 bytes"}},
			{`new sabmutex.Mutex(sab, "1")`, "TypeError", []string{"index must be a number"}},
			{`m.lock()`, "Error", []string{"main thread", "lockAsync"}},
			{`m.lockAsync(-1)`, "RangeError", []string{">= 0", "got -1"}},
			{`m.lockAsync(NaN)`, "RangeError", []string{"got NaN"}},
			{`m.lockAsync("10")`, "TypeError", []string{"number of milliseconds"}},
			{`m.unlock()`, "Error", []string{"not locked", "index 1"}},
			{`m.withLockAsync(42)`, "TypeError", []string{"function"}},
			{`sabmutex.init(42)`, "TypeError", []string{"object"}},
		} {
			got := eval[*jsError](p, `errorOf(async () => `+c.expr+`)`)
			checkError(t, c.expr, got, c.name, c.parts...)
		}
		if w := eval[[]int](p, `Array.from(words)`); w[1] != 0 {
			t.Errorf("the bad calls changed the lock word to %d", w[1])
		}

		// In a worker: a bad timeout, and lock() works where blocking is allowed.
		got := eval[*jsError](p, `(async () => {
			const [w] = await startWorkers(["classic"], sab);
			try {
				return await w.run(async () => { try { self.m.lock(-5) } catch (e) { return { name: e.name, message: e.message } } return null });
			} finally { w.terminate() }
		})()`)
		checkError(t, "lock(-5) in a worker", got, "RangeError", "got -5")
	})
}

func TestCorruptedWordIsReportedAndKept(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Errors []*jsError
			Word   int
		}](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(16);
			const words = new Int32Array(sab);
			const m = new sabmutex.Mutex(sab, 2);
			words[2] = 7; // an app wrote over the lock word
			const errors = [];
			for (const f of [() => m.tryLock(), () => m.lockAsync(10), () => m.unlock()]) errors.push(await errorOf(f));
			return { errors, word: words[2] };
		})()`)
		for i, e := range got.Errors {
			checkError(t, []string{"tryLock", "lockAsync", "unlock"}[i], e, "Error", "corrupted mutex state in the Mutex at index 2", "holds 7")
		}
		if got.Word != 7 {
			t.Errorf("the corrupted word was changed to %d", got.Word)
		}
	})
}

func TestInitErrors(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html", "404")
		for _, c := range []struct {
			expr, name string
			parts      []string
		}{
			{`new sabmutex.Mutex(new SharedArrayBuffer(8))`, "Error", []string{"await sabmutex.init()"}},
			{`sabmutex.Mutex.SLOTS`, "Error", []string{"await sabmutex.init()"}},
			{`sabmutex.init({ wasm: 42 })`, "TypeError", []string{"URL", "WebAssembly.Module", "got number 42"}},
			{`sabmutex.init({ wasm: "/missing.wasm" })`, "Error", []string{"missing.wasm", "HTTP 404"}},
			{`sabmutex.init({ wasm: new Uint8Array([1, 2, 3]) })`, "Error", []string{"could not load"}},
		} {
			got := eval[*jsError](p, `errorOf(async () => `+c.expr+`)`)
			checkError(t, c.expr, got, c.name, c.parts...)
		}
		// After failures, init still works, and calling it again is harmless.
		ok := eval[bool](p, `(async () => {
			await sabmutex.init();
			const first = sabmutex.module;
			await sabmutex.init();
			await sabmutex.init({ wasm: "/missing.wasm" });
			return first instanceof WebAssembly.Module && sabmutex.module === first && sabmutex.Mutex.SLOTS >= 1;
		})()`)
		if !ok {
			t.Error("init after failed attempts, or a second init, did not leave one working module")
		}
	})
}

func TestPageWithoutIsolationHeadersIsExplained(t *testing.T) {
	sameWithoutWaitAsync(t, "a page without SharedArrayBuffer waits for nothing")
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, plain.URL+"/index.html")
		if eval[bool](p, `crossOriginIsolated`) {
			t.Fatal("the plain server's page is cross-origin isolated")
		}
		got := eval[*jsError](p, `errorOf(() => sabmutex.init())`)
		checkError(t, "init on a page that is not isolated", got, "Error", "not cross-origin isolated", isolationHeaders)
	})
}

// An isolated page in an engine that does not expose SharedArrayBuffer (as
// WebKitGTK without JSC_useSharedArrayBuffer=1): init says what is missing,
// not that the page lacks isolation.
func TestIsolatedPageWithoutSharedArrayBufferIsExplained(t *testing.T) {
	sameWithoutWaitAsync(t, "a page without SharedArrayBuffer waits for nothing")
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[*jsError](p, `(async () => {
			if (!crossOriginIsolated) throw new Error("the test page is not isolated");
			delete globalThis.SharedArrayBuffer;
			return errorOf(() => sabmutex.init());
		})()`)
		checkError(t, "init where SharedArrayBuffer is missing", got, "Error", "does not expose SharedArrayBuffer", "although the page is cross-origin isolated")
		if strings.Contains(got.Message, "not cross-origin isolated") {
			t.Errorf("init blames isolation: %q", got.Message)
		}
	})
}
