// Package serve is the static file server of the demo, the benchmarks and the
// browser tests. It sends what a page that uses sabmutex needs: the two
// headers that make it cross-origin isolated (so SharedArrayBuffer exists) and
// application/wasm for .wasm files.
package serve

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Mounts is where the demo, the benchmarks and the built dist/ live, for a
// repository checked out at root, and the npm package multithreading that
// the benchmarks compare with (installed by npm ci; web/bench/family.js).
func Mounts(root string) map[string]string {
	return map[string]string{
		"/":                             root + "/web/static",
		"/bench/":                       root + "/web/bench",
		"/dist/":                        root + "/dist",
		"/node_modules/multithreading/": root + "/node_modules/multithreading",
		"/node_modules/workerpool/":     root + "/pools/node_modules/workerpool",
		"/node_modules/async-mutex/":    root + "/node_modules/async-mutex",
	}
}

// Server serves directories under URL prefixes.
type Server struct {
	mux *http.ServeMux
	// isolated says whether responses carry COOP/COEP. The browser tests turn
	// it off to check what sabmutex says on a page that is not isolated.
	isolated bool
	wasmGets sync.Map // the requests' User-Agent -> *atomic.Int64
}

// New returns a server; mounts maps URL prefixes ("/", "/dist/") to directories.
func New(mounts map[string]string, isolated bool) *Server {
	s := &Server{mux: http.NewServeMux(), isolated: isolated}
	for prefix, dir := range mounts {
		s.mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.FileServer(http.Dir(dir))))
	}
	// Browsers ask for it; a 404 would be a console error in every test.
	s.mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if s.isolated {
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Embedder-Policy", "require-corp")
	}
	h.Set("Cache-Control", "no-store")
	if strings.HasSuffix(r.URL.Path, ".wasm") {
		h.Set("Content-Type", "application/wasm")
		n, _ := s.wasmGets.LoadOrStore(r.Header.Get("User-Agent"), new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	}
	if strings.HasSuffix(r.URL.Path, ".mjs") {
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	}
	s.mux.ServeHTTP(w, r)
}

// WasmGets counts the requests for .wasm files so far from the browser
// whose User-Agent is userAgent (the browser tests run engines at once).
func (s *Server) WasmGets(userAgent string) int64 {
	if n, ok := s.wasmGets.Load(userAgent); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}
