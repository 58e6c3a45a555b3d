// Command benchrun is `make bench`: it serves the benchmark page, runs the
// suite (web/bench/bench.js) in headless Chromium, prints the table and
// writes the raw figures to dist/bench.json. Run it from the repository root
// after `make`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabmutex/sabmutex/internal/chrome"
	"github.com/sabmutex/sabmutex/web/serve"
)

type stats struct {
	Median, Min, Max float64
	Reps             []float64
}

type metric struct {
	ID, Name, Unit, Better       string
	Sabmutex, Baseline, Weblocks *stats
	Target                       map[string]float64
}

type results struct {
	Date, Browser string
	Cores         int
	Metrics       []metric
	Histograms    map[string][]int
}

func main() {
	out := flag.String("o", "dist/bench.json", "where to write the raw figures")
	quick := flag.Bool("quick", false, "fewer, shorter repetitions (seconds, not minutes)")
	flag.Parse()
	log.SetFlags(0)

	srv := httptest.NewServer(serve.New(serve.Mounts("."), true))
	defer srv.Close()
	ctx, cancel, _, err := chrome.Start(context.Background())
	if err != nil {
		log.Fatalf("bench: %v", err)
	}
	defer cancel()

	var mu sync.Mutex
	var console []string
	chrome.OnProblem(ctx, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		console = append(console, msg)
	})
	runCtx, stop := context.WithTimeout(ctx, 5*time.Minute)
	defer stop()
	started := time.Now()
	res, err := chromedp.Run(runCtx, func(ctx context.Context, t *chromedp.Target) (results, error) {
		if _, err := chromedp.Navigate(srv.URL+"/bench.html")(ctx, t); err != nil {
			return results{}, err
		}
		return chromedp.Evaluate[results](
			`new Promise((resolve) => { const go = () => window.runBench ? resolve() : setTimeout(go, 10); go(); })
			 .then(() => runBench({ quick: `+strconv.FormatBool(*quick)+` }))`,
			chromedp.EvalAwaitPromise)(ctx, t)
	})
	if err != nil {
		mu.Lock()
		log.Fatalf("bench: %v\n%s", err, strings.Join(console, "\n"))
	}
	addBrotli(&res)

	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatalf("bench: %v", err)
	}
	printTable(res)
	fmt.Printf("\n%s, %d cores, %s; %.0f s; raw figures in %s\n", browserVersion(res.Browser), res.Cores, res.Date[:10], time.Since(started).Seconds(), *out)
}

// addBrotli fills in the brotli size where the browser's CompressionStream
// lacks the format, with Node's zlib.
func addBrotli(res *results) {
	for i, m := range res.Metrics {
		if m.ID != "wasm-brotli" || m.Sabmutex != nil {
			continue
		}
		b, err := exec.Command("node", "-e",
			`const z=require("zlib"),fs=require("fs");process.stdout.write(String(z.brotliCompressSync(fs.readFileSync("dist/sabmutex.wasm"),{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))`).Output()
		if n, err2 := strconv.Atoi(string(b)); err == nil && err2 == nil {
			res.Metrics[i].Sabmutex = &stats{Median: float64(n) / 1e6, Min: float64(n) / 1e6, Max: float64(n) / 1e6}
		}
	}
}

func browserVersion(ua string) string {
	for _, f := range strings.Fields(ua) {
		if strings.HasPrefix(f, "HeadlessChrome/") || strings.HasPrefix(f, "Chrome/") {
			return strings.Replace(f, "/", " ", 1)
		}
	}
	return ua
}

func printTable(res results) {
	fmt.Printf("%-53s %-5s %-22s %-22s %-22s %-7s %s\n", "metric", "unit", "sabmutex", "JS baseline", "Web Locks", "ratio", "target")
	for _, m := range res.Metrics {
		ratio, target, pass := verdict(m)
		mark := ""
		if pass != nil {
			mark = map[bool]string{true: " ✓", false: " ✗ MISSED"}[*pass]
		}
		fmt.Printf("%-53s %-5s %-22s %-22s %-22s %-7s %s%s\n", m.Name, m.Unit, cell(m.Sabmutex), cell(m.Baseline), cell(m.Weblocks), ratio, target, mark)
	}
}

func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

func cell(s *stats) string {
	if s == nil {
		return "–"
	}
	return fmt.Sprintf("%s (%s–%s)", num(s.Median), num(s.Min), num(s.Max))
}

// verdict mirrors web/bench/render.js: the ratio to the baseline, the target
// as text, and whether it is met.
func verdict(m metric) (ratio, target string, pass *bool) {
	ratio = "–"
	r := 0.0
	if m.Sabmutex != nil && m.Baseline != nil {
		r = m.Sabmutex.Median / m.Baseline.Median
		ratio = fmt.Sprintf("%.2f×", r)
	}
	set := func(b bool) { pass = &b }
	if v, ok := m.Target["ratioMax"]; ok && m.Baseline != nil {
		target = fmt.Sprintf("≤ %g×", v)
		set(r <= v)
	}
	if v, ok := m.Target["ratioMin"]; ok && m.Baseline != nil {
		target = fmt.Sprintf("≥ %g×", v)
		set(r >= v)
	}
	if v, ok := m.Target["max"]; ok && m.Sabmutex != nil {
		target = fmt.Sprintf("≤ %g %s", v, m.Unit)
		set(m.Sabmutex.Median <= v)
	}
	return ratio, target, pass
}
