package browsertest

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// A Go agent in debug mode (sabsync follows its registry: testdata/goagent
// joined a registry made with init({ debug: true }); the page side in
// testdata/debuggo.js): it takes A then B, and later a JavaScript worker
// takes B then A, never at the same time. The page's onReport gets a
// "lock-order" report that names both agents, both locks and the Go
// agent's site (main.go and its line), once for named locks (Named("A"),
// { name: "A" }) and once for unnamed ones (known by their first slot and
// their buffer's length): the Go and JavaScript sides give one lock one
// key. The twin: the same agents on a page without debug mode: no report.
func TestDebugGoAgentLockOrder(t *testing.T) {
	sameWithoutWaitAsync(t, "debug mode records and reports at each call, whatever the wait sleeps on; its waits are the family's, which the second pass runs")
	site := fmt.Sprintf("main.go:%d", lineOf(t, "testdata/goagent/main.go", "// the order's site"))
	type lock struct {
		Index int     `json:"index"`
		Name  *string `json:"name,omitempty"`
	}
	name := func(s string) *string { return &s }
	cases := []struct {
		locks  []lock
		labels []string
	}{
		{[]lock{{0, name("A")}, {2, name("B")}}, []string{`the Mutex "A"`, `the Mutex "B"`}},
		{[]lock{{4, nil}, {6, nil}}, []string{"the Mutex at index 4", "the Mutex at index 6"}},
	}
	type result struct {
		Reports []struct {
			Kind, Message string
			Agents        []int
		}
		GoID, JsID int
		AfterMs    float64
	}
	forEngines(t, func(t *testing.T, e *engine) {
		t.Run("debug", func(t *testing.T) {
			p := e.open(t, isolated.URL+"/debuggo.html?debug", "sabmutex: lock-order inversion")
			for _, c := range cases {
				locks, _ := json.Marshal(c.locks)
				r := eval[result](p, fmt.Sprintf(`goJsInversion(%s, 5000)`, locks))
				var msg string
				for _, rep := range r.Reports {
					if rep.Kind == "lock-order" && strings.Contains(rep.Message, c.labels[0]) && strings.Contains(rep.Message, c.labels[1]) {
						msg = rep.Message
						if !slices.Contains(rep.Agents, r.GoID) || !slices.Contains(rep.Agents, r.JsID) {
							t.Errorf("the report's agents are %v; want the Go agent's id %d and the JavaScript agent's %d", rep.Agents, r.GoID, r.JsID)
						}
					}
				}
				if msg == "" {
					t.Errorf("%s and %s taken in opposite orders by a Go agent and a JavaScript one: no lock-order report within 5 s; reports: %+v", c.labels[0], c.labels[1], r.Reports)
					continue
				}
				t.Logf("reported %.0f ms after the JavaScript agent was done: %s", r.AfterMs, msg)
				for _, want := range []string{
					"sabmutex: lock-order inversion",
					fmt.Sprintf("agent %d (%q) took %s at main.order (%s)", r.GoID, "go agent", c.labels[1], site),
					fmt.Sprintf("while it held %s, taken at main.order (%s)", c.labels[0], site),
					fmt.Sprintf("agent %d (%q) took %s at ", r.JsID, "js agent", c.labels[0]),
					fmt.Sprintf("while it held %s, taken at ", c.labels[1]),
				} {
					if !strings.Contains(msg, want) {
						t.Errorf("the report does not say %q: %s", want, msg)
					}
				}
			}
		})
		t.Run("off", func(t *testing.T) {
			p := e.open(t, isolated.URL+"/debuggo.html")
			locks, _ := json.Marshal(cases[0].locks)
			r := eval[result](p, fmt.Sprintf(`goJsInversion(%s, 1500)`, locks))
			if len(r.Reports) != 0 {
				t.Errorf("without debug mode, the page got reports: %+v; want none", r.Reports)
			}
		})
	})
}

// lineOf is the line number (from 1) of the only line of file that
// contains marker.
func lineOf(t *testing.T, file, marker string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, marker) {
			if line != 0 {
				t.Fatalf("%s has %q on lines %d and %d", file, marker, line, i+1)
			}
			line = i + 1
		}
	}
	if line == 0 {
		t.Fatalf("%s has no line with %q", file, marker)
	}
	return line
}
