package coretest

import (
	"fmt"
	"math"
	"testing"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on the debug area (internal/core/debugarea.go) of a registry
// made in debug mode (Host.Debug), its accesses steps: writers record what
// they hold, wait for and took in which order with the core's Go writer
// (the core tests' module's exports, wasm/wasip1/debug.go), while readers
// read their regions as the collector will, each Atomics.load a step: the
// count of edges, then each edge below it; a mark's gen, its key, its
// other fields, gen again (unchanged: the mark is whole); a text's length,
// then its bytes.
//
// What must hold, in every schedule:
//
//	| what                        | how it is checked                                   |
//	| an edge counted is whole    | each edge below the count that the reader loaded is |
//	|                             | the writer's edge of that index, field for field,   |
//	|                             | and its labels and sites name texts whose bytes are |
//	|                             | what the writer wrote                               |
//	| a mark read whole is one    | a mark that the reader takes as whole has the key,  |
//	| DebugMark's                 | mode, label, site and since of one DebugMark of its |
//	|                             | key                                                 |
//	| an inversion between two    | two writers each publish an edge (A→B, B→A), then   |
//	| agents is never missed by   | read the other's region: one of them at least sees  |
//	| both                        | the other's edge, whole                             |

// What the debug area's roles keep: each writer's texts, marks and edges
// (by role) as it made them, and whether each role saw the other's edge.
type dbgState struct {
	w   [2]dbgWriter
	saw [2]bool
}

type dbgWriter struct {
	texts map[int32]string // by ref
	marks []dbgMark        // every DebugMark it made, in order
	edges []dbgEdge        // every edge it published: its i-th is the region's i-th
}

// A mark as its writer made it. Its since is read during DebugMark: from
// lo to hi (hi: math.MaxInt32 while DebugMark runs).
type dbgMark struct {
	key, mode, label, site int32
	lo, hi                 int32
}

// An edge's fields, in the region's order: from, to, modes, from's label,
// from's site, to's label, to's site.
type dbgEdge [proto.DebugEdgeSlots]int32

// The fields of a mark (internal/core/debugarea.go's mKey ...: the layout
// publishes how many there are, not their order).
const (
	dmKey, dmMode, dmLabel, dmSite, dmSince, dmGen = 0, 1, 2, 3, 4, 5
)

// The writers of these scenarios use their first dbgMarks marks alone;
// the reader reads no others (they stay 0: loads of them would be steps
// that commute with every other, as localLoad's do).
const (
	dbgMarks  = 2
	dbgPasses = 2 // the reader's reads of the region
)

// dbgRegion is the first slot of the region of agent id, which joined the
// explored registry: the n-th to join has the n-th.
func dbgRegion(s *sched, id int32) int32 {
	return proto.RegistrySlots + proto.DebugHeaderLen + (id-s.reg0()-1)*proto.DebugRegionSlots
}

// The writer's side: the core's functions, through the module's exports.

// dbgKey is the key of the lock identified by name (DebugKey: no step).
func dbgKey(a *sagent, name string) int32 {
	return a.a.Debug("debugKey", dbgBytes(a, name))
}

// dbgBytes puts t in the module's buffer for debugText and debugKey, and
// returns its length.
func dbgBytes(a *sagent, t string) int32 {
	at := a.a.Debug("debugBuffer", int32(len(t)))
	if !a.a.mod.Memory().Write(uint32(at), []byte(t)) {
		panic(fmt.Sprintf("debugBuffer gave %d, outside the module's memory", at))
	}
	return int32(len(t))
}

// dbgText writes t as a text of region r (DebugText) and returns its ref.
func dbgText(s *sched, a *sagent, r int32, t string) int32 {
	ref := a.a.Debug("debugText", r, dbgBytes(a, t))
	if ref <= 0 {
		s.fail("role %d: DebugText(%q) = %d", a.id, t, ref)
	}
	s.dbg.w[a.id].texts[ref] = t // (no mark or edge names it yet)
	return ref
}

// dbgMarkOf marks in region r that a holds or waits for (mode) the lock
// key (DebugMark), a millisecond after its last step (virtual time, no
// step of its own: each mark's since is its own).
func dbgMarkOf(s *sched, a *sagent, r, key, mode, label, site int32) dbgMark {
	w := &s.dbg.w[a.id]
	s.nowMs++
	w.marks = append(w.marks, dbgMark{key, mode, label, site, int32(s.nowMs), math.MaxInt32})
	k := len(w.marks) - 1
	if a.a.Debug("debugMark", r, key, mode, label, site) != 1 {
		s.fail("role %d: DebugMark(%d, %d) = false", a.id, key, mode)
	}
	w.marks[k].hi = int32(s.nowMs)
	return w.marks[k]
}

func dbgUnmark(a *sagent, r int32, m dbgMark) { a.a.Debug("debugUnmark", r, m.key, m.mode) }

// dbgEdgeOf publishes in region r that a took to while it held from
// (DebugEdge).
func dbgEdgeOf(s *sched, a *sagent, r int32, from, to dbgMark) {
	w := &s.dbg.w[a.id]
	w.edges = append(w.edges, dbgEdge{from.key, to.key, from.mode | to.mode<<2, from.label, from.site, to.label, to.site})
	if a.a.Debug("debugEdge", r, from.key, to.key) != 1 {
		s.fail("role %d: DebugEdge(%d, %d) = false", a.id, from.key, to.key)
	}
}

// dbgOwnRegion is a's region, as the core finds it (DebugRegion), checked.
func dbgOwnRegion(s *sched, a *sagent) int32 {
	r := a.a.Debug("debugRegion", 1)
	if want := dbgRegion(s, a.a.ID); r != want {
		s.fail("role %d (agent %d): DebugRegion = %d, want %d", a.id, a.a.ID, r, want)
	}
	return r
}

// The reader's side, as the collector reads (each load a step).

// dbgLoad is the collector's Atomics.load of slot i of the registry.
func dbgLoad(s *sched, a *sagent, i int32) int32 {
	s.step(a)
	v := s.mems[s.reg][i]
	if s.trace != nil {
		s.tracef(a, "load %s = %d", where(s.reg, i), v)
	}
	return v
}

// dbgReadEdges reads region r's edges: the count, then each edge below it.
func dbgReadEdges(s *sched, a *sagent, r int32) []dbgEdge {
	n := dbgLoad(s, a, r+proto.DebugEdges)
	if n < 0 || n > proto.DebugEdgeEntries {
		s.fail("role %d: a count of %d edges", a.id, n)
	}
	es := make([]dbgEdge, n)
	for i := range n {
		for f := range es[i] {
			es[i][f] = dbgLoad(s, a, r+proto.DebugEdgeList+i*proto.DebugEdgeSlots+int32(f))
		}
	}
	return es
}

// dbgReadText reads the text of region r whose ref is ref: its length,
// then its bytes.
func dbgReadText(s *sched, a *sagent, r, ref int32) string {
	if ref < 1 || ref >= proto.DebugTextSlots {
		s.fail("role %d: a text's ref %d, outside the text", a.id, ref)
	}
	at := r + proto.DebugText + ref - 1
	n := dbgLoad(s, a, at)
	if n < 0 || ref+(n+3)/4 > proto.DebugTextSlots {
		s.fail("role %d: text %d is %d bytes long, past the text", a.id, ref, n)
	}
	b := make([]byte, 0, n)
	for i := int32(0); i < n; i += 4 {
		v := uint32(dbgLoad(s, a, at+1+i/4))
		for j := int32(0); j < 4 && i+j < n; j++ {
			b = append(b, byte(v>>(8*j)))
		}
	}
	return string(b)
}

// dbgCheckEdges checks the edges es read of region r, writer w's: each is
// w's edge of its index, and names texts that are w's.
func dbgCheckEdges(s *sched, a *sagent, r int32, w *dbgWriter, es []dbgEdge) {
	for i, e := range es {
		if i >= len(w.edges) || e != w.edges[i] {
			var want any = "none"
			if i < len(w.edges) {
				want = w.edges[i]
			}
			s.fail("role %d: edge %d, below the count, is %v; the writer's is %v: torn", a.id, i, e, want)
		}
		for _, ref := range e[3:] {
			if ref == 0 {
				continue
			}
			if t := dbgReadText(s, a, r, ref); t != w.texts[ref] {
				s.fail("role %d: edge %d names text %d, which reads %q; the writer wrote %q", a.id, i, ref, t, w.texts[ref])
			}
		}
	}
}

// dbgReadMarks reads region r's marks: for each, its gen, its key (0:
// none), its other fields, its gen again; it returns those it finds whole
// (gen unchanged).
func dbgReadMarks(s *sched, a *sagent, r int32) (whole [][proto.DebugMarkSlots]int32) {
	for m := r + proto.DebugMarks; m < r+proto.DebugMarks+dbgMarks*proto.DebugMarkSlots; m += proto.DebugMarkSlots {
		var f [proto.DebugMarkSlots]int32
		f[dmGen] = dbgLoad(s, a, m+dmGen)
		if f[dmKey] = dbgLoad(s, a, m+dmKey); f[dmKey] == 0 {
			continue
		}
		for i := dmMode; i <= dmSince; i++ {
			f[i] = dbgLoad(s, a, m+int32(i))
		}
		if dbgLoad(s, a, m+dmGen) == f[dmGen] {
			whole = append(whole, f)
		}
	}
	return whole
}

// dbgCheckMark checks a mark f read whole of writer w's region: it is one
// of w's DebugMarks, every field.
func dbgCheckMark(s *sched, a *sagent, w *dbgWriter, f [proto.DebugMarkSlots]int32) {
	for _, m := range w.marks {
		if m.key == f[dmKey] && m.mode == f[dmMode] && m.label == f[dmLabel] && m.site == f[dmSite] && m.lo <= f[dmSince] && f[dmSince] <= m.hi {
			return
		}
	}
	s.fail("role %d: a mark read whole {key %d, mode %d, label %d, site %d, since %d} is none of the writer's: torn (its marks: %v)",
		a.id, f[dmKey], f[dmMode], f[dmLabel], f[dmSite], f[dmSince], w.marks)
}

// -------- A writer and a reader. The writer (role 0) writes its texts,
// takes A then B (marks, the edge A→B) and lets them go, then takes B,
// waits for A and takes it (its hold marked in the mark its wait had: the
// same key, the same place) and publishes B→A; it still holds both at its
// end. The reader (role 1) reads the writer's region twice over: its
// edges and their texts, and its marks.

func dbgWriterRole(s *sched, a *sagent) {
	s.dbg.w[a.id].texts = map[int32]string{}
	r := dbgOwnRegion(s, a)
	keyA, keyB := dbgKey(a, "mutex A"), dbgKey(a, "mutex B")
	labelA, labelB, site := dbgText(s, a, r, "mutex A"), dbgText(s, a, r, "mutex B"), dbgText(s, a, r, "w.js:7")
	a1 := dbgMarkOf(s, a, r, keyA, proto.MarkHold, labelA, site)
	b1 := dbgMarkOf(s, a, r, keyB, proto.MarkHold, labelB, site)
	dbgEdgeOf(s, a, r, a1, b1)
	dbgUnmark(a, r, b1)
	dbgUnmark(a, r, a1)
	b2 := dbgMarkOf(s, a, r, keyB, proto.MarkHold, labelB, site)
	aw := dbgMarkOf(s, a, r, keyA, proto.MarkWait, labelA, site)
	dbgUnmark(a, r, aw)
	a2 := dbgMarkOf(s, a, r, keyA, proto.MarkHold, labelA, site)
	dbgEdgeOf(s, a, r, b2, a2)
}

func dbgReaderRole(s *sched, a *sagent) {
	w, r := &s.dbg.w[0], dbgRegion(s, s.agents[0].a.ID)
	for range dbgPasses {
		dbgCheckEdges(s, a, r, w, dbgReadEdges(s, a, r))
		for _, f := range dbgReadMarks(s, a, r) {
			dbgCheckMark(s, a, w, f)
		}
	}
}

var dbgWriterScenario = &scenario{
	name:  "debug area: a writer's marks, texts and edges, read as it writes them",
	roles: []role{{dbgWriterRole, 0}, {dbgReaderRole, 1}},
	steps: 200, debug: true,
}

func TestExploreDebugWriter(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreBoth(t, dbgWriterScenario)
}

// -------- An inversion. Two writers take two locks in opposite orders:
// role 0 A then B, role 1 B then A (marks, then the edge), and each then
// reads the other's edges (publish, then scan, as the collector does when
// its agent takes a lock): one of them at least sees the other's, whole.
// The twin that scans first misses the inversion in some schedule: the
// check has teeth.

func dbgInverter(first, second string, scanFirst bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		other := 1 - a.id
		r, ro := dbgOwnRegion(s, a), dbgRegion(s, s.agents[other].a.ID)
		k1, k2 := dbgKey(a, first), dbgKey(a, second)
		scan := func() {
			es := dbgReadEdges(s, a, ro)
			dbgCheckEdges(s, a, ro, &s.dbg.w[other], es)
			for _, e := range es {
				if e[0] == k2 && e[1] == k1 {
					s.dbg.saw[a.id] = true
				}
			}
		}
		if scanFirst {
			scan()
		}
		m1 := dbgMarkOf(s, a, r, k1, proto.MarkHold, 0, 0)
		m2 := dbgMarkOf(s, a, r, k2, proto.MarkHold, 0, 0)
		dbgEdgeOf(s, a, r, m1, m2)
		if !scanFirst {
			scan()
		}
	}
}

func dbgInversionScenario(scanFirst bool) *scenario {
	name := "debug area: two writers publish an inversion, then each reads the other's edges"
	if scanFirst {
		name = "debug area: two writers read each other's edges, then publish an inversion"
	}
	return &scenario{
		name:  name,
		roles: []role{{dbgInverter("mutex A", "mutex B", scanFirst), 0}, {dbgInverter("mutex B", "mutex A", scanFirst), 1}},
		steps: 80, debug: true,
		check: func(s *sched) string {
			if !s.dbg.saw[0] && !s.dbg.saw[1] {
				return "neither writer saw the other's edge: an inversion missed by both"
			}
			return ""
		},
	}
}

var (
	dbgInversion          = dbgInversionScenario(false)
	dbgInversionScanFirst = dbgInversionScenario(true)
	dbgScenarios          = []*scenario{dbgWriterScenario, dbgInversion}
)

func TestExploreDebugInversion(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	exploreBoth(t, dbgInversion)
	if *exploreSeed < 0 {
		exploreCatches(t, dbgInversionScanFirst)
	}
}

// exploreCatches runs PCT schedules of sc and its bounded search (≤ 2
// preemptions), each until a schedule fails: each must find one.
func exploreCatches(t *testing.T, sc *scenario) {
	e := &explorer{t: t, h: watchedHost(t)}
	e.h.Debug = sc.debug
	seed, f := e.pctOf([]*scenario{sc}, 2000, 0)
	if seed < 0 {
		t.Fatalf("%s: 2000 PCT schedules pass, want a failure", sc.name)
	}
	t.Logf("%s: PCT fails it after %d schedules (seed %d): %s", sc.name, e.runs, seed, f)
	e2 := &explorer{t: t, h: e.h}
	f, prefix := e2.bounded(sc, 2, 400000)
	if f == "" {
		t.Fatalf("%s: every schedule with ≤ 2 preemptions passes, want a failure", sc.name)
	}
	t.Logf("%s: the bounded search fails it after %d schedules (schedule %v): %s", sc.name, e2.runs, prefix, f)
}
