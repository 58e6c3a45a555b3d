package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/browsers"
)

// machine is what a results page says of the machine a run was on.
type machine struct {
	Cores  int    // runtime.NumCPU
	CPU    string // the model name in /proc/cpuinfo, where readable
	OS     string // /etc/os-release's PRETTY_NAME and the kernel's release
	Memory string // MemTotal in /proc/meminfo
}

// thisMachine describes the machine benchrun runs on.
func thisMachine() *machine {
	m := &machine{Cores: runtime.NumCPU(), CPU: runtime.GOARCH, OS: runtime.GOOS}
	if v := fieldOf("/proc/cpuinfo", "model name", ":"); v != "" {
		m.CPU = v
	}
	if v := fieldOf("/etc/os-release", "PRETTY_NAME", "="); v != "" {
		m.OS = strings.Trim(v, `"`)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += ", kernel " + strings.TrimSpace(string(b))
	}
	if v := fieldOf("/proc/meminfo", "MemTotal", ":"); v != "" {
		var kb float64
		if _, err := fmt.Sscanf(v, "%f kB", &kb); err == nil {
			m.Memory = fmt.Sprintf("%.1f GiB", kb/(1<<20))
		}
	}
	return m
}

// fieldOf is the value of the first line "key<sep>value" of a file, or "".
func fieldOf(path, key, sep string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// thisBuild is `git describe --always` of the working tree, with "-dirty"
// if a file other than a results page (web/bench/results: a run in one
// engine writes its own before the next engine's begins) differs from it;
// or "".
func thisBuild() string {
	b, err := exec.Command("git", "describe", "--always").Output()
	if err != nil {
		return ""
	}
	changed, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)web/bench/results").Output()
	if err != nil {
		return ""
	}
	if len(bytes.TrimSpace(changed)) > 0 {
		return strings.TrimSpace(string(b)) + "-dirty"
	}
	return strings.TrimSpace(string(b))
}

// engineOf is the engine (one of browsers.Engines) a run was made in: the
// one it records, else the one its version names.
func engineOf(res results) string {
	if res.EngineName != "" {
		return res.EngineName
	}
	for _, e := range browsers.Engines {
		if strings.Contains(strings.ToLower(res.Engine), e) {
			return e
		}
	}
	return ""
}

// writeResults writes a run's results page, dir/<engine>.md, and beside it
// the figures it is made from, dir/<engine>.json (what -page reads to write
// it again).
func writeResults(res results, dir string) (page string, err error) {
	engine := engineOf(res)
	if engine == "" {
		return "", fmt.Errorf("which engine ran %q: not one of %s", res.Engine, strings.Join(browsers.Engines, ", "))
	}
	res.EngineName = engine
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	j, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, engine+".json"), append(j, '\n'), 0o644); err != nil {
		return "", err
	}
	page = filepath.Join(dir, engine+".md")
	return page, os.WriteFile(page, []byte(resultsPage(res)), 0o644)
}

// resultsPage is a run's results page: what ran where, then every row it
// ran, as benchrun prints them.
func resultsPage(res results) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	engine := engineOf(res)
	title := res.Engine
	if i := strings.Index(title, " built on"); i > 0 {
		title = title[:i]
	}
	p("# `make bench` in %s\n\n", title)
	p("Written by `cmd/benchrun` (`make bench BROWSER=%s`); do not edit: the next run replaces it, and\n", engine)
	p("`go run ./cmd/benchrun -page web/bench/results/%s.json` writes it again from its figures.\n\n", engine)
	if len(res.Only) > 0 {
		p("**A partial run**: only the sections %s ran (`-only %s`). The next full `make bench BROWSER=%s` replaces this page.\n\n",
			"`"+strings.Join(res.Only, "`, `")+"`", strings.Join(res.Only, ","), engine)
	}
	if res.Quick {
		p("**A quick run** (`-quick`: 2 repetitions, shorter loops): a rough guide only.\n\n")
	}
	p("| | |\n| --- | --- |\n")
	p("| date | %s |\n", dateOf(res.Date))
	p("| build | %s |\n", orNotRecorded(res.Build))
	p("| browser | %s |\n", title)
	if res.Engine != title {
		p("| browser, as its package says | %s |\n", res.Engine)
	}
	p("| its user agent | `%s` |\n", res.Browser)
	if m := res.Machine; m != nil {
		cores := fmt.Sprintf("%d cores", m.Cores)
		if res.Cores != 0 && res.Cores != m.Cores {
			cores += fmt.Sprintf(" (the browser says %d)", res.Cores)
		}
		p("| machine | %s, %s", cores, m.CPU)
		if m.Memory != "" {
			p(", %s", m.Memory)
		}
		p(", %s |\n", m.OS)
	} else {
		p("| machine | not recorded (the browser says %d cores) |\n", res.Cores)
	}
	p("\nHow to read it: [web/bench/README.md](../README.md) says what each row measures, how the\n")
	p("implementations are alternated, and what the floors are. Each figure is the median of the\n")
	p("repetitions of one page load, its range in brackets; a ratio is sabmutex ÷ the row's\n")
	p("yardstick. What was tried and decided, with the figures that decided it, is in\n")
	p("[docs/decisions/](../../../docs/decisions/); the README's key ratios are in its\n")
	p("[Browser support](../../../docs/browsers.md#browser-support).\n")

	pageMain(&b, res)
	pageSection(&b, res, "family", "The sync family")
	pageSection(&b, res, "channel", "The Channel")
	pageSection(&b, res, "pool", "The worker pool")
	pageMatrix(&b, res)
	if len(res.Notes) > 0 {
		p("\n## Notes\n\n")
		for _, n := range res.Notes {
			p("- %s\n", n)
		}
	}
	return b.String()
}

func dateOf(iso string) string {
	t, err := time.Parse(time.RFC3339, iso)
	if err != nil {
		return iso
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func orNotRecorded(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// esc makes s fit in a table's cell.
func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mark is a verdict's ✓ or ✗, or "".
func mark(pass *bool) string {
	if pass == nil {
		return ""
	}
	return map[bool]string{true: " ✓", false: " ✗"}[*pass]
}

// beside is a yardstick's or floor's figure, and sabmutex ÷ it.
func beside(of, sab *stats) string {
	if of == nil || sab == nil {
		return "–"
	}
	return fmt.Sprintf("%s (%.2f×)", num(of.Median), sab.Median/of.Median)
}

// pageMain is the mutex's rows (those of no section), beside the plain-JS
// mutex, then beside the other yardsticks and floors, then the floors under
// the longest waits.
func pageMain(b *strings.Builder, res results) {
	var rows []metric
	for _, m := range res.Metrics {
		if m.Section == "" {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## The Mutex beside the plain-JS futex mutex\n\n")
	p("The baseline is the class-shaped plain-JS mutex (`JsMutex`, web/bench/jsmutex.js); ratio: sabmutex ÷ it.\n\n")
	p("| row | unit | sabmutex | JS baseline | Web Locks | ratio | target |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	others := false
	for _, m := range rows {
		ratio, target, pass := verdict(m)
		p("| %s | %s | %s | %s | %s | %s | %s%s |\n", esc(m.Name), m.Unit, cell(m.Sabmutex), cell(m.Baseline), cell(m.Weblocks), ratio, target, mark(pass))
		others = others || m.Closure != nil || m.Owned != nil || m.Unwatched != nil || m.Debug != nil
	}
	if others {
		p("\nBeside the other yardsticks and floors: each cell is that implementation's median, then sabmutex ÷ it\n")
		p("(for debug mode, debug ÷ sabmutex). *Closure-shaped*: the seed article's mutex; *owner floor*: the baseline\n")
		p("plus sabmutex's holder slot (`JsOwnedMutex`); *unwatched*: sabmutex in workers whose waits are not\n")
		p("watched (untimed sleeps); *debug*: sabmutex in workers in debug mode.\n\n")
		p("| row | unit | closure-shaped | owner floor | owner floor ÷ baseline | unwatched | debug mode |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, m := range rows {
			if m.Closure == nil && m.Owned == nil && m.Unwatched == nil && m.Debug == nil {
				continue
			}
			floorRatio, debug := "–", "–"
			if m.Owned != nil && m.Baseline != nil {
				floorRatio = fmt.Sprintf("%.2f×", m.Owned.Median/m.Baseline.Median)
			}
			if m.Debug != nil && m.Sabmutex != nil {
				debug = fmt.Sprintf("%s (%.2f×)", num(m.Debug.Median), m.Debug.Median/m.Sabmutex.Median)
			}
			p("| %s | %s | %s | %s | %s | %s | %s |\n", esc(m.Name), m.Unit, beside(m.Closure, m.Sabmutex), beside(m.Owned, m.Sabmutex), floorRatio, beside(m.Unwatched, m.Sabmutex), debug)
		}
	}
	if f := res.DeschedFloor; f != nil {
		p("\nThe floors under the longest waits (medians of runs, ranges in brackets):\n\n")
		p("- %d workers doing the same work with no lock go unscheduled for up to %s ms (%s–%s): no lock makes a waiter's worst case shorter.\n",
			f.Workers, num(f.MaxGapMs.Median), num(f.MaxGapMs.Min), num(f.MaxGapMs.Max))
		if g := f.PageMaxGapMs; g != nil {
			p("- With them, the page doing the same loop with no lock goes unscheduled for up to %s ms (%s–%s).\n", num(g.Median), num(g.Min), num(g.Max))
		}
		if g := f.PageWakeMaxMs; g != nil {
			p("- With them busy, the page's `Atomics.waitAsync` runs up to %s ms (%s–%s) after a worker's notify (the longest of 1000 wake-ups): a `lockAsync` pays up to that each time it sleeps.\n",
				num(g.Median), num(g.Min), num(g.Max))
		}
	}
}

// pageSection is a section's rows (family, channel, pool), each beside the
// baseline it names, and the floors of those that have one.
func pageSection(b *strings.Builder, res results, section, title string) {
	var rows []metric
	for _, m := range res.Metrics {
		if m.Section == section {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## %s\n\nRatio: sabmutex ÷ the baseline each row names.\n\n", title)
	p("| row | unit | sabmutex | baseline | vs | ratio | target |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, m := range rows {
		ratio, target, pass := verdict(m)
		p("| %s | %s | %s | %s | %s | %s | %s%s |\n", esc(m.Name), m.Unit, cell(m.Sabmutex), cell(m.Baseline), esc(m.Vs), ratio, target, mark(pass))
	}
	for _, m := range rows {
		if m.Floor != nil && m.Baseline != nil && m.Sabmutex != nil {
			p("\nThe floor under %s: %s takes %s %s, %.2f× the baseline; sabmutex is %.2f× that.\n",
				m.Name, m.FloorWhat, num(m.Floor.Median), m.Unit, m.Floor.Median/m.Baseline.Median, m.Sabmutex.Median/m.Floor.Median)
		}
	}
}

// pageMatrix is the contention matrix, cell by cell, as printMatrix prints it.
func pageMatrix(b *strings.Builder, res results) {
	if len(res.Matrix) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## The contention matrix\n\n")
	p("Each pair is sabmutex / the plain-JS mutex; ratio: sabmutex ÷ it (throughput); floor: the owner floor ÷ it;\n")
	p("vs closure: sabmutex ÷ the closure-shaped mutex; work: a critical section's busy work as timed in the workers.\n")
	if f := res.WakeFloor; f.WakeUps > 0 {
		p("The wake-up floor of this run: a worker asleep in `Atomics.wait` runs p50 %s µs, p99 %s, p99.9 %s, max %s after the notify (%d wake-ups).\n",
			num(f.P50Us), num(f.P99Us), num(f.P999Us), num(f.MaxUs), f.WakeUps)
	}
	p("\n| critical section | agents | M acq/s | ratio | floor | vs closure | min/max acq | wait p50 µs | p99 µs | p99.9 µs | max µs | work µs |\n")
	p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range res.Matrix {
		agents := fmt.Sprintf("%d workers", c.Workers)
		if c.Page {
			agents += " + page"
		}
		s, j := c.Sabmutex, c.JS
		pair := func(a, b float64) string { return num(a) + " / " + num(b) }
		work, vsClosure := "–", "–"
		if s.WorkUs > 0 {
			work = pair(s.WorkUs, j.WorkUs)
		}
		if c.Closure.MPerSec > 0 {
			vsClosure = fmt.Sprintf("%.2f×", s.MPerSec/c.Closure.MPerSec)
		}
		p("| %s | %s | %s | %.2f× | %.2f× | %s | %.2f / %.2f | %s | %s | %s | %s | %s |\n", c.CSName, agents,
			pair(s.MPerSec, j.MPerSec), s.MPerSec/j.MPerSec, c.Owned.MPerSec/j.MPerSec, vsClosure, s.MinMaxAcq, j.MinMaxAcq,
			pair(s.P50Us, j.P50Us), pair(s.P99Us, j.P99Us), pair(s.P999Us, j.P999Us), pair(s.MaxUs, j.MaxUs), work)
	}
}
