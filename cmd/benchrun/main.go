// Command benchrun is `make bench`: it serves the benchmark page, runs the
// suite (web/bench/bench.js) in one engine (-browser: chromium, firefox or
// webkit, through internal/testing/browsers), prints the tables, writes the raw
// figures to dist/bench.json (-o), and writes the engine's results page,
// web/bench/results/<engine>.md, with its figures beside it in
// <engine>.json (page.go). Run it from the repository root after `make`.
//
// With -page FILE.json it runs nothing: it writes the results page of a
// run from that run's figures (its own <engine>.json, or a -o file).
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
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/browsers"
	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

type stats struct {
	Median, Min, Max float64
	Reps             []float64
}

type metric struct {
	ID, Name, Unit, Better       string
	Section, Vs                  string // "family", "channel" and "pool" rows, and what their baseline is
	Sabmutex, Baseline, Weblocks *stats
	Owned                        *stats // the baseline plus sabmutex's holder slot (web/bench/jsmutex.js)
	Closure                      *stats // the seed article's closure-shaped mutex (web/bench/jsmutex.js), the second yardstick
	Unwatched                    *stats // sabmutex in workers whose waits are not watched (untimed sleeps): the contended rows' floor
	Debug                        *stats // sabmutex in workers in debug mode: what it costs where it is on
	Floor                        *stats // a family row's floor: the baseline plus what sabmutex must do there, named by FloorWhat
	FloorWhat                    string
	Target                       map[string]float64
}

type results struct {
	Date, Browser string
	Engine        string // name and version, from the package
	EngineName    string // the engine, one of browsers.Engines (-browser)
	Cores         int    // navigator.hardwareConcurrency
	Build         string // git describe --always --dirty, when the run began
	Machine       *machine
	Only          []string // the sections run (-only); none: all
	Quick         bool
	Metrics       []metric
	Histograms    map[string][]int
	WakeFloor     waits
	DeschedFloor  *struct { // the floor under the fairness rows' longest waits (bench.js)
		Workers       int
		MaxGapMs      stats
		PageMaxGapMs  *stats // the page's, with the same workers
		PageWakeMaxMs *stats // the page's longest wake-up after a notify, with the same workers
	}
	Matrix []matrixCell
	Notes  []string // what the suite skipped, and why
}

// waits is a wait distribution, in µs.
type waits struct {
	WakeUps                     int
	P50Us, P99Us, P999Us, MaxUs float64
}

// matrixCell is one cell of the contention matrix (web/bench/matrix.js).
type matrixCell struct {
	CS, CSName   string
	Workers      int
	Page         bool
	Sabmutex, JS struct {
		MPerSec, MinMaxAcq float64
		waits
		WorkUs float64 // a critical section's busy work, as timed in the workers (0: none)
	}
	Owned   struct{ MPerSec float64 } // the plain-JS mutex plus a holder slot: the floor with owner checks
	Closure struct{ MPerSec float64 } // the seed article's closure-shaped mutex
}

func main() {
	out := flag.String("o", "dist/bench.json", "where to write the raw figures")
	quick := flag.Bool("quick", false, "fewer, shorter repetitions (seconds, not minutes)")
	only := flag.String("only", "", "comma-separated sections to run (uncontended, contended, fairness, handoff, family, channel, pool, matrix, footprint, names, queued; counter: the matrix's counter++ row alone; lockq: what requestSync's calls into Go cost); all by default")
	engine := flag.String("browser", "chromium", "the engine to run in: "+strings.Join(browsers.Engines, ", "))
	dir := flag.String("results", "web/bench/results", "where to write the results page, <engine>.md, and its figures, <engine>.json")
	page := flag.String("page", "", "run nothing: write the results page of the run whose figures are in this JSON file")
	build := flag.String("build", "", "with -page: the build, for figures that do not record it")
	here := flag.Bool("here", false, "with -page: the run was made on this machine, for figures that do not record it")
	flag.Parse()
	log.SetFlags(0)
	if *page != "" {
		writePageOf(*page, *dir, *only, *build, *here)
		return
	}

	d := browsers.NewDriver()
	srv := httptest.NewServer(d.WrapIsolated(serve.New(serve.Mounts("."), true)))
	defer srv.Close()
	b, err := browsers.Start(context.Background(), *engine, d, srv.URL, browsers.Options{})
	if err != nil {
		log.Fatalf("bench: %v", err)
	}
	defer b.Stop()
	// log.Fatalf skips the defers: stop the engine first (a failed run left
	// it running, orphaned).
	fatalf := func(format string, args ...any) {
		b.Stop()
		log.Fatalf(format, args...)
	}
	version, _ := browsers.Version(*engine)
	rev, where := thisBuild(), thisMachine()

	ctx, stop := context.WithTimeout(context.Background(), 10*time.Minute)
	defer stop()
	started := time.Now()
	p, err := b.Open(ctx, srv.URL+"/bench.html")
	if err != nil {
		fatalf("bench: %v", err)
	}
	res, err := browsers.Eval[results](ctx, p,
		`new Promise((resolve) => { const go = () => window.runBench ? resolve() : setTimeout(go, 10); go(); })
		 .then(() => runBench({ quick: `+strconv.FormatBool(*quick)+`, only: `+onlyJS(*only)+` }))`)
	problems := p.Problems()
	if err != nil || len(problems) > 0 {
		fatalf("bench: %v\n%s", err, strings.Join(problems, "\n"))
	}
	p.Close()
	addBrotli(&res)
	res.Engine, res.EngineName, res.Build, res.Machine, res.Quick = version, *engine, rev, where, *quick
	if *only != "" {
		res.Only = strings.Split(*only, ",")
	}

	j, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(*out, j, 0o644); err != nil {
		fatalf("bench: %v", err)
	}
	pagePath, err := writeResults(res, *dir)
	if err != nil {
		fatalf("bench: the results page: %v", err)
	}
	printTable(res)
	printSection(res, "family", "The sync family")
	printSection(res, "channel", "The Channel")
	printSection(res, "pool", "The worker pool")
	printMatrix(res)
	for _, n := range res.Notes {
		fmt.Printf("\nnote: %s\n", n)
	}
	fmt.Printf("\n%s, %d cores, %s; %.0f s; raw figures in %s; results page %s\n", version, res.Cores, res.Date[:10], time.Since(started).Seconds(), *out, pagePath)
}

// writePageOf writes the results page of the run whose figures are in
// file. What the figures do not record (runs before benchrun recorded it)
// is taken from the flags: the sections (-only), the build (-build), and
// the machine (-here: this one).
func writePageOf(file, dir, only, build string, here bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatalf("bench: %v", err)
	}
	var res results
	if err := json.Unmarshal(b, &res); err != nil {
		log.Fatalf("bench: %s: %v", file, err)
	}
	if len(res.Only) == 0 && only != "" {
		res.Only = strings.Split(only, ",")
	}
	if res.Build == "" {
		res.Build = build
	}
	if res.Machine == nil && here {
		res.Machine = thisMachine()
	}
	p, err := writeResults(res, dir)
	if err != nil {
		log.Fatalf("bench: %v", err)
	}
	fmt.Println(p)
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

func printTable(res results) {
	shown := 0
	for _, m := range res.Metrics {
		if m.Section == "" {
			shown++
		}
	}
	if shown == 0 {
		return
	}
	fmt.Printf("%-53s %-5s %-22s %-22s %-22s %-7s %s\n", "metric", "unit", "sabmutex", "JS baseline", "Web Locks", "ratio", "target")
	for _, m := range res.Metrics {
		if m.Section != "" {
			continue
		}
		ratio, target, pass := verdict(m)
		mark := ""
		if pass != nil {
			mark = map[bool]string{true: " ✓", false: " ✗ MISSED"}[*pass]
		}
		fmt.Printf("%-53s %-5s %-22s %-22s %-22s %-7s %s%s\n", m.Name, m.Unit, cell(m.Sabmutex), cell(m.Baseline), cell(m.Weblocks), ratio, target, mark)
	}
	for _, m := range res.Metrics {
		if m.Closure != nil && m.Sabmutex != nil {
			fmt.Printf("beside the closure-shaped mutex (the seed article's): %s takes %s %s, %.2f× the class-shaped baseline; sabmutex is %.2f× it\n",
				m.Name, num(m.Closure.Median), m.Unit, m.Closure.Median/m.Baseline.Median, m.Sabmutex.Median/m.Closure.Median)
		}
	}
	for _, m := range res.Metrics {
		if m.Unwatched != nil && m.Sabmutex != nil && m.Closure != nil {
			fmt.Printf("floor under %s for a watched sabmutex: the same in workers not watched (untimed sleeps, no dead holder found) takes %s %s, %.2f× the closure-shaped mutex; watched sabmutex is %.2f× that\n",
				m.Name, num(m.Unwatched.Median), m.Unit, m.Unwatched.Median/m.Closure.Median, m.Sabmutex.Median/m.Unwatched.Median)
		}
	}
	for _, m := range res.Metrics {
		if m.Debug != nil && m.Sabmutex != nil {
			fmt.Printf("debug mode on (README, \"Debugging\"): %s takes %s %s, %.2f× sabmutex's\n", m.Name, num(m.Debug.Median), m.Unit, m.Debug.Median/m.Sabmutex.Median)
		}
	}
	for _, m := range res.Metrics {
		if m.Owned != nil && m.Baseline != nil && m.Sabmutex != nil {
			fmt.Printf("floor under %s: the JS baseline plus sabmutex's holder slot (owner checks) takes %s %s, %.2f× the baseline; sabmutex is %.2f× that\n",
				m.Name, num(m.Owned.Median), m.Unit, m.Owned.Median/m.Baseline.Median, m.Sabmutex.Median/m.Owned.Median)
		}
	}
	if f := res.DeschedFloor; f != nil {
		fmt.Printf("floor under the longest waits: %d workers doing the same work with no lock go unscheduled for up to %s ms (longest gap in their loops; median of %d runs, %s-%s)\n",
			f.Workers, num(f.MaxGapMs.Median), len(f.MaxGapMs.Reps), num(f.MaxGapMs.Min), num(f.MaxGapMs.Max))
		if p := f.PageMaxGapMs; p != nil {
			fmt.Printf("the page's own floor: with them, the page doing the same loop with no lock goes unscheduled for up to %s ms (median of %d runs, %s-%s)\n",
				num(p.Median), len(p.Reps), num(p.Min), num(p.Max))
		}
		if p := f.PageWakeMaxMs; p != nil {
			fmt.Printf("the page's wake-up floor: with them busy, the page's Atomics.waitAsync runs up to %s ms after a worker's notify (longest of 1000 wake-ups; median of %d runs, %s-%s): a lockAsync pays up to that each time it sleeps\n",
				num(p.Median), len(p.Reps), num(p.Min), num(p.Max))
		}
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
	// A row whose yardstick is Web Locks alone (names-request): the ratio
	// is sabmutex ÷ Web Locks, written 1/N, and the target a fraction of it.
	if v, ok := m.Target["weblocksTimesMin"]; ok && m.Baseline == nil && m.Sabmutex != nil && m.Weblocks != nil {
		times := m.Weblocks.Median / m.Sabmutex.Median
		ratio = fmt.Sprintf("1/%.0f×", times)
		target = fmt.Sprintf("≤ 1/%g× Web Locks", v)
		set(times >= v)
	}
	if v, ok := m.Target["max"]; ok && m.Sabmutex != nil {
		target = fmt.Sprintf("≤ %g %s", v, m.Unit)
		set(m.Sabmutex.Median <= v)
	}
	return ratio, target, pass
}

// printSection prints the rows of a section (family, channel, pool): sabmutex
// beside the baseline named in each row (the textbook plain-JS version,
// postMessage, or an npm package).
func printSection(res results, section, title string) {
	var rows []metric
	for _, m := range res.Metrics {
		if m.Section == section {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Printf("\n%s (sabmutex / baseline, medians of repetitions alternated in one run)\n", title)
	fmt.Printf("%-58s %-5s %-22s %-22s %-22s %-7s %s\n", "metric", "unit", "sabmutex", "baseline", "vs", "ratio", "target")
	for _, m := range rows {
		ratio, target, pass := verdict(m)
		mark := ""
		if pass != nil {
			mark = map[bool]string{true: " ✓", false: " ✗ MISSED"}[*pass]
		}
		fmt.Printf("%-58s %-5s %-22s %-22s %-22s %-7s %s%s\n", m.Name, m.Unit, cell(m.Sabmutex), cell(m.Baseline), m.Vs, ratio, target, mark)
	}
	for _, m := range rows {
		if m.Floor != nil && m.Baseline != nil && m.Sabmutex != nil {
			fmt.Printf("floor under %s: %s takes %s %s, %.2f× the baseline; sabmutex is %.2f× that\n",
				m.Name, m.FloorWhat, num(m.Floor.Median), m.Unit, m.Floor.Median/m.Baseline.Median, m.Sabmutex.Median/m.Floor.Median)
		}
	}
}

// printMatrix prints the contention matrix: per cell, throughput of both and
// their ratio, the spread of acquisitions among agents (min/max), the waits
// of both, beside the machine's wake-up floor measured in the same run, and
// the busy work of a critical section as timed (both must do the same).
func printMatrix(res results) {
	if len(res.Matrix) == 0 {
		return
	}
	f := res.WakeFloor
	fmt.Printf("\nContention matrix (sabmutex / plain JS, medians of repetitions alternated in one run; floor: the plain-JS mutex plus sabmutex's holder slot, / plain JS; vs closure: sabmutex / the seed article's closure-shaped mutex)\n")
	if f.WakeUps > 0 { // (-only counter does not measure it)
		fmt.Printf("wake-up floor: a worker asleep in Atomics.wait runs p50 %s µs, p99 %s, p99.9 %s, max %s after the notify (%d wake-ups)\n",
			num(f.P50Us), num(f.P99Us), num(f.P999Us), num(f.MaxUs), f.WakeUps)
	}
	fmt.Printf("%-10s %-8s %-19s %-6s %-6s %-10s %-11s %-15s %-15s %-17s %-17s %-13s\n", "critical", "agents", "M acq/s", "ratio", "floor", "vs closure", "min/max acq", "wait p50 µs", "p99 µs", "p99.9 µs", "max µs", "work µs")
	for _, c := range res.Matrix {
		agents := strconv.Itoa(c.Workers) + "w"
		if c.Page {
			agents += "+page"
		}
		s, j := c.Sabmutex, c.JS
		pair := func(a, b float64) string { return num(a) + " / " + num(b) }
		work := "–"
		if s.WorkUs > 0 {
			work = pair(s.WorkUs, j.WorkUs)
		}
		vsClosure := "–"
		if c.Closure.MPerSec > 0 {
			vsClosure = fmt.Sprintf("%.2f×", s.MPerSec/c.Closure.MPerSec)
		}
		fmt.Printf("%-10s %-8s %-19s %-6s %-6s %-10s %-11s %-15s %-15s %-17s %-17s %-13s\n", c.CSName, agents,
			pair(s.MPerSec, j.MPerSec), fmt.Sprintf("%.2f×", s.MPerSec/j.MPerSec), fmt.Sprintf("%.2f×", c.Owned.MPerSec/j.MPerSec), vsClosure,
			fmt.Sprintf("%.2f/%.2f", s.MinMaxAcq, j.MinMaxAcq),
			pair(s.P50Us, j.P50Us), pair(s.P99Us, j.P99Us), pair(s.P999Us, j.P999Us), pair(s.MaxUs, j.MaxUs), work)
	}
}

// onlyJS is the -only flag as runBench's only option.
func onlyJS(only string) string {
	if only == "" {
		return "null"
	}
	b, _ := json.Marshal(strings.Split(only, ","))
	return string(b)
}
