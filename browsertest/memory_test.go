package browsertest

import "testing"

// growableMemoryJS runs on the page: a worker and the page contend on
// Mutexes of a growable SharedArrayBuffer, made before it grows and after
// (at slots past its first length, in the worker too, whose buffer was
// registered before the growth), and on a Channel made after a second
// growth; then the same over a shared WebAssembly.Memory's buffer before
// and after memory.grow() (issue 45, point 1). Each count must be exact.
const growableMemoryJS = `(async () => {
	await sabmutex.init();
	const N = 300;
	const out = window.growOut = {}; // (out.at: where it is, for a test that hangs)
	// Increments of slot ctr under the Mutex at slot at: the page with
	// lockAsync, the worker with lock(); the worker's buffer is buf, or
	// mem.buffer read now.
	const contend = async (w, m, c, ctr, data) => {
		const worker = w.run(async (sabmutex, { buf, mem, at, ctr, n }) => {
			const b = mem ? mem.buffer : buf;
			const m = new sabmutex.Mutex(b, at), c = new Int32Array(b);
			for (let i = 0; i < n; i++) { m.lock(); const v = c[ctr]; for (let k = 0; k < 50; k++); c[ctr] = v + 1; m.unlock(); }
			return true;
		}, { ...data, ctr, n: N });
		for (let i = 0; i < N; i++) {
			if (!(await m.lockAsync(10000))) throw new Error("lockAsync timed out");
			const v = c[ctr]; await null; c[ctr] = v + 1;
			m.unlock();
		}
		await worker;
		return c[ctr];
	};

	const sab = new SharedArrayBuffer(64, { maxByteLength: 8192 });
	const first = new sabmutex.Mutex(sab, 0); // registers the buffer at 64 bytes
	out.pastLength = await errorOf(() => new sabmutex.Mutex(sab, 200));
	const [w] = await startWorkers(["module"], sab); // the worker registers it too, at 64 bytes
	sab.grow(1024);
	const c = new Int32Array(sab);
	out.at = "grown";
	out.grown = await contend(w, new sabmutex.Mutex(sab, 200), c, 210, { buf: sab, at: 200 });
	out.at = "first";
	out.first = await contend(w, first, c, 2, { buf: sab, at: 0 });
	out.at = "grow8192";
	sab.grow(8192);
	const ch = new sabmutex.Channel(sab, 1024, 4, 16);
	out.at = "channel";
	const sent = w.run(async (sabmutex, { sab }) => {
		const ch = new sabmutex.Channel(sab, 1024, 4, 16);
		for (let i = 0; i < 100; i++) ch.send("m" + i);
		return true;
	}, { sab });
	const got = [];
	for (let i = 0; i < 100; i++) got.push(await ch.recvAsync(10000));
	await sent;
	out.channel = got.every((m, i) => m === "m" + i);
	out.at = "regrown";
	out.regrown = await contend(w, new sabmutex.Mutex(sab, 2000), c, 2010, { buf: sab, at: 2000 });

	const mem = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
	const old = mem.buffer;
	const a = new sabmutex.Mutex(old, 0);
	out.at = "wasmBefore";
	out.wasmBefore = await contend(w, a, new Int32Array(old), 4, { mem, at: 0 });
	out.at = "memgrow";
	mem.grow(1);
	out.oldLength = old.byteLength;
	out.newLength = mem.buffer.byteLength;
	out.oldPastEnd = await errorOf(() => new sabmutex.Mutex(old, 16384 + 8));
	const b = new sabmutex.Mutex(mem.buffer, 16384 + 8);
	out.at = "wasmAfter";
	out.wasmAfter = await contend(w, b, new Int32Array(mem.buffer), 16384 + 12, { mem, at: 16384 + 8 });
	out.at = "wasmOld";
	out.wasmOld = await contend(w, a, new Int32Array(mem.buffer), 5, { mem, at: 0 });
	// One memory, two buffer objects: one lock word.
	out.at = "again";
	const again = new sabmutex.Mutex(mem.buffer, 0);
	out.sameWord = a.tryLock() && !again.tryLock() && again.isLocked() && (a.unlock(), !again.isLocked());
	w.terminate();
	out.n = N;
	return out;
})()`

func TestGrowableMemory(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			PastLength, OldPastEnd                                *jsError
			Grown, First, Regrown, WasmBefore, WasmAfter, WasmOld int
			Channel, SameWord                                     bool
			OldLength, NewLength, N                               int
		}](p, growableMemoryJS)
		want := 2 * got.N
		for name, n := range map[string]int{"a Mutex made after grow(1024), at slot 200": got.Grown, "a Mutex made before": got.First,
			"a Mutex made after grow(8192), at slot 2000": got.Regrown, "a Mutex over a WebAssembly.Memory's buffer": got.WasmBefore,
			"a Mutex past its first length, over memory.buffer after memory.grow()": got.WasmAfter, "the first Mutex, after memory.grow()": got.WasmOld} {
			if n != want {
				t.Errorf("%s: the page and a worker counted %d, want %d", name, n, want)
			}
		}
		checkError(t, "new Mutex(sab, 200) before the growth", got.PastLength, "RangeError", "from 0 to 14", "memory of 16 int32 slots (64 bytes)")
		checkError(t, "new Mutex(the old buffer, past its end) after memory.grow()", got.OldPastEnd, "RangeError", "from 0 to 16382")
		if !got.Channel {
			t.Error("a Channel made after the second growth lost or reordered messages")
		}
		if !got.SameWord || got.OldLength != 65536 || got.NewLength != 131072 {
			t.Errorf("after memory.grow(): the old buffer has %d bytes, the new %d; one lock word through both: %v", got.OldLength, got.NewLength, got.SameWord)
		}
	})
}
