package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A results page has every row the run ran, says what ran where, and is
// written again, the same, from the figures written beside it.
func TestResultsPage(t *testing.T) {
	res := results{
		Date: "2026-11-26T00:31:56.750Z", Browser: "Mozilla/5.0 HeadlessChrome/156", Engine: "Chromium 156.0.8078.108 built on Debian GNU/Linux 12 (bookworm)", Cores: 2,
		Build: "23be559", Machine: &machine{Cores: 2, CPU: "AMD EPYC", OS: "Debian GNU/Linux 12 (bookworm)"}, Only: []string{"uncontended", "family"},
		Metrics: []metric{
			{ID: "uncontended-lock", Name: "lock()+unlock(), uncontended, worker", Unit: "ns", Sabmutex: &stats{Median: 23.2}, Baseline: &stats{Median: 19.6},
				Owned: &stats{Median: 21.3}, Closure: &stats{Median: 20}, Target: map[string]float64{"ratioMax": 1.15}},
			{ID: "names-request", Name: "await locks.request(name, () => {}), uncontended, main thread", Unit: "ns", Sabmutex: &stats{Median: 250}, Weblocks: &stats{Median: 300000},
				Target: map[string]float64{"weblocksTimesMin": 100}},
			{ID: "sem", Name: "Semaphore(2), 4 workers", Unit: "M/s", Section: "family", Vs: "textbook JS", Sabmutex: &stats{Median: 4}, Baseline: &stats{Median: 5},
				Target: map[string]float64{"ratioMin": 0.8}},
			{ID: "pool-1p", Name: "Channel by name, 64-byte jobs, 1 prod. + 4 workers", Unit: "k/s", Section: "pool", Vs: "postMessage, in turn", Sabmutex: &stats{Median: 150}, Baseline: &stats{Median: 100},
				Target: map[string]float64{"ratioMin": 2}},
			{ID: "pool-1p-sleeps", Name: "Channel pool, 1 prod.: sleeps, per job", Unit: "/job", Section: "pool", Vs: "counted, untimed", Sabmutex: &stats{Median: 0.25}},
		},
		Matrix: []matrixCell{{CSName: "counter++", Workers: 2, Page: true}},
	}
	res.Matrix[0].Sabmutex.MPerSec, res.Matrix[0].JS.MPerSec, res.Matrix[0].Owned.MPerSec = 9, 10, 9.5
	dir := t.TempDir()
	path, err := writeResults(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "chromium.md") {
		t.Errorf("page written to %s, want chromium.md", path)
	}
	b, _ := os.ReadFile(path)
	page := string(b)
	for _, want := range []string{
		"# `make bench` in Chromium 156.0.8078.108\n",
		"**A partial run**: only the sections `uncontended`, `family` ran",
		"| build | 23be559 |",
		"| machine | 2 cores, AMD EPYC, Debian GNU/Linux 12 (bookworm) |",
		"| lock()+unlock(), uncontended, worker | ns | 23.20 (0.000–0.000) | 19.60 (0.000–0.000) | – | 1.18× | ≤ 1.15× ✗ |",
		"| lock()+unlock(), uncontended, worker | ns | 20.00 (1.16×) | 21.30 (1.09×) | 1.09× | – | – |",
		"| await locks.request(name, () => {}), uncontended, main thread | ns | 250 (0.000–0.000) | – | 300000 (0.000–0.000) | 1/1200× | ≤ 1/100× Web Locks ✓ |",
		"| Semaphore(2), 4 workers | M/s | 4.00 (0.000–0.000) | 5.00 (0.000–0.000) | textbook JS | 0.80× | ≥ 0.8× ✓ |",
		"| counter++ | 2 workers + page | 9.00 / 10.00 | 0.90× | 0.95× | – |",
		"\n## The worker pool\n",
		"| Channel by name, 64-byte jobs, 1 prod. + 4 workers | k/s | 150 (0.000–0.000) | 100 (0.000–0.000) | postMessage, in turn | 1.50× | ≥ 2× ✗ |",
		"| Channel pool, 1 prod.: sleeps, per job | /job | 0.250 (0.000–0.000) | – | counted, untimed | – |  |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	again := t.TempDir()
	writePageOf(filepath.Join(dir, "chromium.json"), again, "", "", false)
	b2, _ := os.ReadFile(filepath.Join(again, "chromium.md"))
	if string(b2) != page {
		t.Errorf("-page wrote another page from the figures:\n%s", b2)
	}
}
