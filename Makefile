# sabmutex: `make` builds dist/, `make demo` serves the demo, `make test` runs
# every check and test (installing Chromium first where it can), `make bench`
# compares sabmutex with a plain-JS futex mutex and Web Locks in Chromium.

GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/wasm_exec.js
CORE_SRC  := $(wildcard wasm/core/*.go wasm/browser/*.go)
GLUE_SRC  := $(wildcard jsglue/*.js jsglue/*.go)

.PHONY: all dist demo test check types hosttest browsertest bench chromium clean

all: dist/sabmutex.wasm dist/sabmutex.js

dist/sabmutex.wasm: $(CORE_SRC) go.mod
	@mkdir -p dist
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./wasm/browser

# Also writes dist/sabmutex.mjs.
dist/sabmutex.js: $(GLUE_SRC) $(WASM_EXEC)
	@mkdir -p dist
	$(GO) run ./jsglue -wasm-exec '$(WASM_EXEC)' -src jsglue -o dist

# dist/ as an npm package root: `cd dist && npm pack`.
dist: all dist/package.json dist/sabmutex.d.ts dist/README.md dist/LICENSE

dist/package.json dist/sabmutex.d.ts: dist/%: jsglue/%
	cp $< $@

dist/README.md: README.md
	cp $< $@

# sabmutex's license, then Go's: the bundle carries Go's wasm_exec.js and the
# module Go's runtime.
dist/LICENSE: LICENSE $(GOROOT)/LICENSE
	{ cat LICENSE; printf '\n---\nsabmutex.js, sabmutex.mjs and sabmutex.wasm contain code from the Go project:\n\n'; cat '$(GOROOT)/LICENSE'; } > $@

demo: all
	$(GO) run ./web

test: check types hosttest browsertest

check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/...
	node --check jsglue/go_runtime.js && node --check jsglue/imports.js && node --check jsglue/mutex.js

# The hand-written sabmutex.d.ts, checked by a pinned TypeScript (see
# package-lock.json) against jsglue/typetest, which also asserts misuse fails.
types: node_modules/.bin/tsc
	node_modules/.bin/tsc -p jsglue/typetest

node_modules/.bin/tsc: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The core natively and under wazero (hammers, the interleaving explorer),
# then a short fuzz of operation sequences against a model of the mutex
# (corpus: wasm/core/testdata/fuzz).
hosttest:
	$(GO) test -count=1 -timeout 5m ./internal/... ./wasm/... ./hosttest/...
	$(GO) test -run '^$$' -fuzz=FuzzMutexOps -fuzztime=5s ./wasm/core

# Twice: the second pass removes Atomics.waitAsync from every page first, as
# in browsers without it, so lockAsync runs on its helper worker.
browsertest: dist chromium
	$(GO) test -count=1 -v -timeout 10m ./browsertest
	SABMUTEX_NO_WAITASYNC=1 $(GO) test -count=1 -v -timeout 10m ./browsertest

# In one Chromium run: sabmutex beside the plain-JS futex mutex and Web
# Locks (table on stdout, raw figures in dist/bench.json); then the core
# alone under wazero.
bench: all chromium
	$(GO) run ./browsertest/benchrun -o dist/bench.json
	$(GO) test -run '^$$' -bench . -benchtime 200000x ./hosttest

# Chromium for the browser tests: installed with apt where we are root on
# Debian; elsewhere, a message says what to do.
chromium:
	@if command -v chromium >/dev/null 2>&1 || [ -n "$$CHROMIUM" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Chromium (Debian package chromium) for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "The browser tests need Chromium. Install it (Debian/Ubuntu: sudo apt-get install chromium)," \
		     "or set CHROMIUM to the path of a Chromium or Chrome binary."; exit 1; \
	fi

clean:
	rm -rf dist
