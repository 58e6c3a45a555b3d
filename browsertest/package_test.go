package browsertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

// The npm package that `make dist` lays out, packed, installed into a
// scratch project without the network, and used both ways: a classic script
// tag and an ES module import (page and module worker).
func TestNpmPackage(t *testing.T) {
	sameWithoutWaitAsync(t, "the package is laid out and loaded alike; the first pass has checked its waits")
	if _, err := os.Stat("../dist/package.json"); err != nil {
		t.Fatal("../dist/package.json is missing: run `make dist` (make test does)")
	}
	tmp := t.TempDir()
	pack := exec.Command("npm", "pack", "--pack-destination", tmp, "--loglevel=error")
	pack.Dir = "../dist"
	out, err := pack.Output()
	if err != nil {
		t.Fatalf("npm pack: %v", err)
	}
	tarball := filepath.Join(tmp, strings.TrimSpace(string(out)))

	proj := filepath.Join(tmp, "app")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	write("package.json", `{ "name": "scratch", "private": true }`)
	install := exec.Command("npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball)
	install.Dir = proj
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline %s: %v\n%s", filepath.Base(tarball), err, b)
	}
	for _, f := range []string{"sabmutex.js", "sabmutex.mjs", "sabmutex.wasm", "sabmutex.d.ts", "package.json", "README.md", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(proj, "node_modules/sabmutex", f)); err != nil {
			t.Errorf("the installed package lacks %s", f)
		}
	}

	write("classic.html", `<!doctype html><meta charset="utf-8">
<script src="/node_modules/sabmutex/sabmutex.js"></script>`)
	write("esm.html", `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": { "sabmutex": "/node_modules/sabmutex/sabmutex.mjs" } }</script>
<script type="module">
  import * as sabmutex from "sabmutex";
  window.sabmutex = sabmutex;
</script>`)
	write("worker.mjs", `import * as sabmutex from "/node_modules/sabmutex/sabmutex.mjs";
onmessage = async ({ data: { module, sab } }) => {
  await sabmutex.init({ wasm: module });
  const m = new sabmutex.Mutex(sab, 0);
  const ok = m.lock(1000) && !m.tryLock();
  m.unlock();
  postMessage(ok);
};`)
	srv := serveWithDriver(serve.New(map[string]string{"/": proj}, true))
	t.Cleanup(srv.Close) // not defer: the engines run in parallel subtests, after this function returns

	forEngines(t, func(t *testing.T, e *engine) { testInstalledPackage(t, e, srv.URL) })
}

// testInstalledPackage uses the package installed at origin, by script tag
// and by import map, on the page and in a module worker.
func testInstalledPackage(t *testing.T, e *engine, origin string) {
	for _, page := range []string{"classic.html", "esm.html"} {
		p := e.open(t, origin+"/"+page)
		ok := eval[bool](p, `(async () => {
			while (!window.sabmutex) await new Promise((r) => setTimeout(r, 5));
			await sabmutex.init();
			const sab = new SharedArrayBuffer(8);
			const m = new sabmutex.Mutex(sab, 0);
			if (!(await m.lockAsync(100))) return false;
			m.unlock();
			const w = new Worker("/worker.mjs", { type: "module" });
			w.onerror = (e) => console.error("worker: " + e.message);
			const fromWorker = await new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage({ module: sabmutex.module, sab }); });
			w.terminate();
			return fromWorker && m.tryLock();
		})()`)
		if !ok {
			t.Errorf("%s: the installed package did not lock and unlock in the page and a module worker", page)
		}
	}
}
