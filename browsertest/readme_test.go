package browsertest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's code, run: every code block in README.md is preceded by
// <!-- from FILE#REGION --> and is that region of FILE (a "// #region
// REGION" ... "// #endregion" span of examples/readme/ or another file a
// test runs), and TestReadmeExamples runs examples/readme/ in every engine.

// readmeSite is examples/readme/ with the built sabmutex.mjs and
// sabmutex.wasm beside it, as the README tells users to serve them: a
// scratch directory of links, served at /readme/.
func readmeSite() (string, error) {
	dir, err := os.MkdirTemp("", "sabmutex-readme-")
	if err != nil {
		return "", err
	}
	for _, src := range []string{"../examples/readme/*", "../dist/sabmutex.mjs", "../dist/sabmutex.wasm"} {
		files, _ := filepath.Glob(src)
		for _, f := range files {
			abs, err := filepath.Abs(f)
			if err == nil {
				err = os.Symlink(abs, filepath.Join(dir, filepath.Base(f)))
			}
			if err != nil {
				os.RemoveAll(dir)
				return "", err
			}
		}
	}
	return dir, nil
}

// The page and two workers of README "Use" add to one counter: nothing is
// lost. (Without the workers' lock, it lost updates when the workers' loops
// overlapped: "counter: 975556 of 2001000" in Chromium; the hammers of
// mutex_test.go are the mutex's tests that must fail without it.) The family's examples: every item through the queue once, no torn
// read under the RWMutex, never more than 2 inside the Semaphore, one
// "last" per Barrier round, one set-up through the Once, and the WaitGroup
// counts both workers out (a wait that never ends fails the evaluation).
func TestReadmeExamples(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/readme/index.html")
		p.becomes(`document.querySelector("#out").textContent.startsWith("counter:")`)
		if got := eval[string](p, `document.querySelector("#out").textContent`); got != "counter: 2001000 of 2001000" {
			t.Fatalf("index.html shows %q, want counter: 2001000 of 2001000", got)
		}

		p = e.open(t, isolated.URL+"/readme/family.html")
		type family struct {
			Items, SetUps, RanHere, Torn, Reads, OverLimit, Limited, Lasts int
			Reports                                                        string
		}
		want := family{Items: 400, SetUps: 1, RanHere: 1, Torn: 0, Reads: 4000, OverLimit: 0, Limited: 400, Lasts: 20, Reports: "worker 0: done, worker 1: done"}
		if r := eval[family](p, `readmeFamily`); r != want {
			t.Fatalf("family.html: %+v, want %+v", r, want)
		}
	})
}

// Every code block of the README and of the user's pages it links (the
// family, Go, debugging) is a region of a file that a test runs, so that
// they show code that works (docs/pools.md's are the pool recipes that
// TestPools and pools/node.mjs run). (docs/bundlers.md's recipes are built by
// bundlers/build.mjs; docs/how-it-works.md's server configurations are
// not code of ours.)
func TestReadmeCodeBlocks(t *testing.T) {
	sameWithoutWaitAsync(t, "it reads files")
	total := 0
	for _, page := range []string{"README.md", "docs/family.md", "docs/go.md", "docs/debugging.md", "docs/api.md", "docs/guarantees.md", "docs/browsers.md", "docs/pools.md"} {
		blocks, err := readmeBlocks(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		total += len(blocks)
		for _, b := range blocks {
			if b.from == "" {
				t.Errorf("%s:%d: a code block without <!-- from FILE#REGION --> before it", page, b.line)
				continue
			}
			file, region, _ := strings.Cut(b.from, "#")
			want, err := regionOf(filepath.Join("..", file), region)
			if err != nil {
				t.Errorf("%s:%d: %v", page, b.line, err)
				continue
			}
			if b.text != want {
				t.Errorf("%s:%d: the block differs from %s; copy the region again:\n%s", page, b.line, b.from, want)
			}
		}
	}
	if total < 8 {
		t.Fatalf("the README and its pages have %d code blocks; want the examples (8 or more)", total)
	}
}

type readmeBlock struct {
	line       int
	from, text string
}

// readmeBlocks returns README's fenced code blocks, each with the source
// named in the comment line before its fence.
func readmeBlocks(path string) ([]readmeBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	var text []string
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &readmeBlock{line: n}
			if from, ok := strings.CutPrefix(prev, "<!-- from "); ok {
				cur.from = strings.TrimSpace(strings.TrimSuffix(from, "-->"))
			}
			text = nil
		case cur != nil && line == "```":
			cur.text = strings.Join(text, "\n")
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			text = append(text, line)
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	return blocks, sc.Err()
}

// regionOf returns the lines between "#region name" and the next
// "#endregion" in file (comment markers of any language), without their
// common indentation.
func regionOf(file, name string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var lines []string
	in, found := false, false
	for _, line := range strings.Split(string(data), "\n") {
		marker := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "/#<!- "))
		switch {
		case marker == "#region "+name || marker == "region "+name:
			in, found = true, true
		case in && (marker == "#endregion" || marker == "endregion"):
			in = false
		case in:
			lines = append(lines, line)
		}
	}
	if !found {
		return "", fmt.Errorf("%s has no region %q", file, name)
	}
	return dedent(lines), nil
}

func dedent(lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}
