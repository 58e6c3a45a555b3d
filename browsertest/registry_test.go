package browsertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The registry (jsglue/registry.js): the page and the workers that pass
// its forWorker() to init, one of them nested in another worker, get the
// ids base+1 to base+5, unique among them; messages name them; a worker
// that inits as before (init({ wasm: module })) gets a random id outside
// them; a registry that is not one, and a name that is not a string, are
// refused with sabmutex: errors.
func TestRegistry(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/registry.html")
		r := eval[struct {
			Page, Nested, Holder, Plain int
			Workers                     []int
			Message, Bad, BadName       string
		}](p, `registryTest()`)
		ids := append([]int{r.Page, r.Nested}, r.Workers...)
		slices.Sort(ids)
		for i, id := range ids {
			if id != r.Page+i {
				t.Fatalf("ids %v (page %d): want %d to %d, one each", ids, r.Page, r.Page, r.Page+4)
			}
		}
		if r.Plain >= r.Page && r.Plain <= r.Page+4 {
			t.Errorf("a worker that did not join got id %d, among the joined ids %v", r.Plain, ids)
		}
		want := fmt.Sprintf(`(this is agent %d ("page"); the holder is agent %d ("worker 1"))`, r.Page, r.Holder)
		if !strings.Contains(r.Message, want) {
			t.Errorf("unlock by the page while worker 1 holds it: %q, want it to contain %q", r.Message, want)
		}
		if !strings.HasPrefix(r.Bad, "TypeError: sabmutex: init({ registry }) takes the registry of sabmutex.forWorker()") {
			t.Errorf("init with a registry that is not one: %q", r.Bad)
		}
		if !strings.HasPrefix(r.BadName, "TypeError: sabmutex: init({ name }) takes a string") {
			t.Errorf("init with a name that is not a string: %q", r.BadName)
		}
		t.Logf("ids %v; a worker that did not join: %d", ids, r.Plain)
	})
}
