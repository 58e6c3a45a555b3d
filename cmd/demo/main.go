// Command demo serves the sabmutex demo on 127.0.0.1 with the headers that a
// page using SharedArrayBuffer needs (see package serve). Run it from the
// repository root after `make`, or just run `make demo`.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	for _, dir := range []string{"web/static", "web/bench", "dist"} {
		if _, err := os.Stat(dir); err != nil {
			log.Fatalf("demo: %v: run it from the repository root, after `make` (or use `make demo`)", err)
		}
	}
	s := serve.New(serve.Mounts("."), true)
	log.Printf("sabmutex demo: http://%s/ and benchmarks: http://%s/bench.html (cross-origin isolated; Ctrl-C stops it)", *addr, *addr)
	log.Fatal(http.ListenAndServe(*addr, s))
}
