// Command firstload measures what a user pays on a fresh page load: the time
// from navigation start to sabmutex's init() resolved (web/bench/firstload.html),
// and the same for a page with no library (firstload-empty.html). Every
// repetition is a new browser context (empty HTTP and code caches) and a new
// tab; the server sends Cache-Control: no-store. The variants alternate (so
// that a busy machine slows each alike), and it prints the median and range
// of each. -dist takes one or more builds to compare, e.g. before and after a
// change:
//
//	go run ./web/firstload -n 21 -dist dist
//	go run ./web/firstload -n 21 -dist before=/tmp/old-dist,after=dist
//	go run ./web/firstload -n 21 -mbps 50 -rtt 20 -dist before=/tmp/old-dist,after=dist
package main

import (
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/testing/chrome"
	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

type sample struct {
	ImportedMs     float64 `json:"importedMs"`
	InitResolvedMs float64 `json:"initResolvedMs"`
	InitMs         float64 `json:"initMs"`
	// Marks is set by an instrumented build only: [name, ms] pairs.
	Marks [][2]any `json:"marks"`
}

func main() {
	dist := flag.String("dist", "dist", "directory of the built sabmutex.mjs and sabmutex.wasm; or label=dir,label=dir,...")
	n := flag.Int("n", 15, "repetitions of each page")
	mbps := flag.Float64("mbps", 0, "throttle downloads to this many Mbit/s (0: no throttling), as on a real network")
	rtt := flag.Float64("rtt", 0, "with -mbps: the latency of every request, ms")
	gz := flag.Bool("gzip", false, "serve .wasm gzip-compressed (Content-Encoding: gzip), as production servers do")
	verbose := flag.Bool("v", false, "print every load (and the phases of init, from a build instrumented to set globalThis.__marks)")
	flag.Parse()
	log.SetFlags(0)
	// Each build is served under /label/, with the pages beside it at
	// /label/bench/ (they import ../dist/sabmutex.mjs).
	mounts := map[string]string{"/empty/bench/": "web/bench"}
	pages := []string{"/empty/bench/firstload-empty.html"}
	for _, d := range strings.Split(*dist, ",") {
		label, dir, ok := strings.Cut(d, "=")
		if !ok {
			label, dir = "sabmutex", d
		}
		if _, err := os.Stat(filepath.Join(dir, "sabmutex.wasm")); err != nil {
			log.Fatalf("firstload: %v: run `make` first, or pass -dist", err)
		}
		mounts["/"+label+"/bench/"] = "web/bench"
		mounts["/"+label+"/dist/"] = dir
		pages = append(pages, "/"+label+"/bench/firstload.html")
	}
	var h http.Handler = serve.New(mounts, true)
	if *gz {
		h = gzipWasm(h)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	ctx, cancel, ua, err := chrome.Start(context.Background())
	if err != nil {
		log.Fatalf("firstload: %v", err)
	}
	defer cancel()
	fmt.Println("browser:", ua)

	got := map[string][]sample{}
	for i := 0; i < *n; i++ {
		for _, pg := range pages {
			s, err := load(ctx, srv.URL+pg, *mbps, *rtt)
			if err != nil {
				log.Fatalf("firstload: %s: %v", pg, err)
			}
			got[pg] = append(got[pg], s)
		}
	}
	net := "no network throttling (localhost)"
	if *gz {
		net = "wasm gzip-compressed, " + net
	}
	if *mbps > 0 {
		net = fmt.Sprintf("downloads throttled to %g Mbit/s, %g ms latency", *mbps, *rtt)
		if *gz {
			net = "wasm gzip-compressed, " + net
		}
	}
	fmt.Printf("%d fresh loads of each page, %s; median (min-max), ms\n", *n, net)
	for _, pg := range pages {
		nav, init := []float64{}, []float64{}
		for _, s := range got[pg] {
			nav = append(nav, s.InitResolvedMs)
			init = append(init, s.InitMs)
		}
		fmt.Printf("%-38s navigation -> init() resolved %s   init() alone %s\n", pg, stats(nav), stats(init))
		if *verbose {
			for _, s := range got[pg] {
				fmt.Printf("    imported %.1f", s.ImportedMs)
				for _, m := range s.Marks {
					fmt.Printf("  %v %.1f", m[0], m[1])
				}
				fmt.Printf("  resolved %.1f\n", s.InitResolvedMs)
			}
		}
	}
}

// load opens url in a new browser context and waits for window.firstload;
// mbps > 0 throttles the tab's network first.
func load(parent context.Context, url string, mbps, rtt float64) (sample, error) {
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	if mbps > 0 {
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
				MatchedNetworkConditions: []*network.Conditions{{Latency: rtt, DownloadThroughput: mbps * 1e6 / 8, UploadThroughput: -1}},
			})
			return err
		}))
		if err != nil {
			return sample{}, fmt.Errorf("throttling: %w", err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return sample{}, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[sample](`(async () => {
		while (!window.firstload) await new Promise((r) => setTimeout(r, 2));
		return window.firstload;
	})()`, chromedp.EvalAwaitPromise))
}

func stats(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%6.1f (%.1f-%.1f)", med, s[0], s[len(s)-1])
}

// gzipWasm serves .wasm files gzip-compressed (compressed once, then from
// memory, so that compression costs no time per load).
func gzipWasm(next http.Handler) http.Handler {
	var mu sync.Mutex
	cache := map[string]*httptest.ResponseRecorder{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, ".wasm") || !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			next.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		rec, ok := cache[r.URL.Path]
		if !ok {
			plain := httptest.NewRecorder()
			next.ServeHTTP(plain, r)
			rec = httptest.NewRecorder()
			for k, v := range plain.Header() {
				rec.Header()[k] = v
			}
			rec.Code = plain.Code
			if plain.Code == http.StatusOK {
				zw, _ := gzip.NewWriterLevel(rec.Body, gzip.BestCompression)
				zw.Write(plain.Body.Bytes())
				zw.Close()
				rec.Header().Set("Content-Encoding", "gzip")
				rec.Header().Del("Content-Length")
			} else {
				rec.Body = plain.Body
			}
			cache[r.URL.Path] = rec
		}
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}
