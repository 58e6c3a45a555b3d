package browsertest

import (
	"os"
	"testing"
)

// The browser recipes of docs/pools.md (pages in testdata/pools/, the
// pools from pools/package-lock.json served at /lib/, threads bundled by
// pools/build.mjs into dist/pools/): comlink 4.4, workerpool 10 and
// threads 1.7, each in every engine. Six tasks on three workers count
// exactly under a lock shared by name, and lose updates without it (so the
// check can fail); 3,000 jobs go over a Channel to three tasks, each once;
// a worker the pool ends while it holds Mutex.named("db") and the lock "db"
// (comlink: terminate(); workerpool: a task's timeout; threads:
// pool.terminate(true)) frees both within the watch's bound, the page told
// (previousHolderDied), and the pool (or the next) goes on counting. The
// Node.js recipes (workerpool, piscina, tinypool) are pools/node.mjs.
func TestPools(t *testing.T) {
	sameWithoutWaitAsync(t, "the recipes' waits are the Mutex's and the Channel's, which the other tests run without waitAsync")
	if _, err := os.Stat("../pools/node_modules/comlink"); err != nil {
		t.Fatal("pools/node_modules is missing: run `make pools/node_modules/.package-lock.json` (make browsertest does)")
	}
	type count struct{ Count, Expected, Agents int }
	type result struct {
		Locked, Unlocked, After count
		Jobs                    struct {
			N, Sum   int
			Expected [2]int
		}
		Ended            string
		Mutex, Told      bool
		Lock             any
		FreedMs, MutexMs float64
	}
	forEngines(t, func(t *testing.T, e *engine) {
		for _, pool := range poolPages {
			p := e.open(t, isolated.URL+"/pools/"+pool+".html")
			p.becomes(`typeof poolTest === "function"`)
			r := eval[result](p, `poolTest()`)
			if r.Locked.Count != r.Locked.Expected || r.Locked.Agents < 2 {
				t.Errorf("%s: under the lock, %d of %d on %d workers", pool, r.Locked.Count, r.Locked.Expected, r.Locked.Agents)
			}
			if r.Unlocked.Count >= r.Unlocked.Expected {
				t.Errorf("%s: without the lock, %d of %d: nothing lost, so the check could not fail", pool, r.Unlocked.Count, r.Unlocked.Expected)
			}
			if r.Jobs.N != r.Jobs.Expected[0] || r.Jobs.Sum != r.Jobs.Expected[1] {
				t.Errorf("%s: the Channel's jobs: %+v", pool, r.Jobs)
			}
			// Chromium releases the Web Locks of a worker busy in a task
			// (the recipes' hold() never returns) 2 s after terminate()
			// (measured: a plain navigator.locks lock, 2,001 ms busy, 1 ms
			// idle), so its agent's end is learnt that much later.
			limit := 1000.0
			if e.name == "chromium" {
				limit = 3000
			}
			if !r.Mutex || !r.Told || r.Lock != true || r.FreedMs > limit {
				t.Errorf("%s: after the pool ended a worker (%s) holding the Mutex and the lock: Mutex %v, told %v, lock %v, in %.0f ms", pool, r.Ended, r.Mutex, r.Told, r.Lock, r.FreedMs)
			}
			if r.After.Count != r.After.Expected {
				t.Errorf("%s: the pool did not go on: %d of %d", pool, r.After.Count, r.After.Expected)
			}
			t.Logf("%s: %d of %d under the lock, %d of %d without; %d jobs; ended (%s), freed in %.0f ms (the Mutex in %.0f ms), told", pool, r.Locked.Count, r.Locked.Expected, r.Unlocked.Count, r.Unlocked.Expected, r.Jobs.N, r.Ended, r.FreedMs, r.MutexMs)
		}
	})
}

var poolPages = []string{"comlink", "workerpool", "threads"}
