package coretest

import (
	"encoding/binary"
	"fmt"
	"testing"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on the name table (internal/core/names.go): two agents create
// one name at once, as Mutex.named("db") does in two workers, while a
// third creates another; the doomed creator ends at each step of its
// lookup in turn (between its claim and its publication among them), and
// the maker marks it DEAD (makerNews). What must hold, in every schedule:
//
//	| what                          | how it is checked                                |
//	| one name, one primitive       | every creator of "db" that returned got the same |
//	|                               | entry and primitive; one READY entry is "db"     |
//	| a READY entry is whole        | after the schedule, every READY entry has its    |
//	|                               | kind, a name of the scenario, a primitive in the |
//	|                               | arena at a multiple of 16 slots                  |
//	| no claim is waited for good   | a creator that found a claim sleeps WATCH_MS at  |
//	|                               | most and asks again; it gives up (and fails the  |
//	|                               | schedule) after namesTries                       |
//
// The table, in the scenario's memory at 0, for namesN names: its header
// (names.go, which this copies: entries, names, claimed, arena slots, next),
// its entries, then the arena.
const (
	namesN       = 2
	namesEntries = 16
	namesHeader  = 8
	namesEntry   = 8
	namesArena   = namesN * 48
	namesWords   = namesHeader + namesEntries*namesEntry + namesArena
	namesTries   = 40
)

// lookupName is the glue's lookup-or-create (jsglue/names.js): the kind,
// its parameters, the flag and the name's UTF-16 code units in the core's
// text, OP_NAME_LOOKUP, and while a claim is in the way, a sleep on its
// state (WATCH_MS at most) and a new lookup. It returns the entry.
func lookupName(s *sched, a *sagent, name string, kind int32) int32 {
	b := binary.LittleEndian.AppendUint32(nil, uint32(kind))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 1)
	for _, u := range utf16.Encode([]rune(name)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	for range namesTries {
		at := a.a.Call(proto.OpText, 0, 0, int32(len(b)), 0)
		if !a.a.mod.Memory().Write(uint32(at), b) {
			panic("OP_TEXT outside the module's memory")
		}
		e := a.a.Call(proto.OpNameLookup, 0, 0, int32(len(b)), 0)
		if e != resultBusy {
			return e
		}
		slot, id := a.a.sleepOut()
		s.wait(a, slot, int32(id), proto.WatchMS)
	}
	s.fail("role %d: %q still claimed by another agent after %d lookups", a.id, name, namesTries)
	return 0
}

// nameGot is what a creator's lookup returned: its name's entry and primitive.
type nameGot struct {
	name    string
	e, prim int32
}

func nameCreator(name string, doomed bool) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		if doomed {
			s.doom(a, s.endAt)
		}
		e := lookupName(s, a, name, proto.NameKindMutex)
		if e < 0 {
			s.fail("role %d: lookup of %q = %d", a.id, name, e)
			return
		}
		if s.mem[e+proto.NameKind] != proto.NameKindMutex {
			s.fail("role %d: %q's entry %d has kind %d", a.id, name, e, s.mem[e+proto.NameKind])
		}
		s.names[a.id] = nameGot{name, e, s.mem[e+proto.NamePrim]}
		if doomed && s.endAt >= 0 {
			s.endNow(a)
		}
	}
}

// namesChecked: the creators of "db" that returned agree, and every READY
// entry is whole and of a name of the scenario, each once.
func namesChecked(s *sched) string {
	var db nameGot
	for _, got := range s.names {
		if got.name == "db" {
			if db.e != 0 && got != db {
				return fmt.Sprintf("two creators of \"db\" got %+v and %+v", db, got)
			}
			db = got
		}
	}
	seen := map[string]bool{}
	arena := int32(namesHeader + namesEntries*namesEntry)
	for i := range int32(namesEntries) {
		e := namesHeader + i*namesEntry
		if s.mem[e] != proto.NameReady {
			continue
		}
		at, n, p := s.mem[e+5], s.mem[e+6], s.mem[e+proto.NamePrim]
		if at < arena || at+(n+1)/2 > namesWords || p%16 != 0 || p < at || p+proto.MutexSlots > namesWords || s.mem[e+proto.NameKind] != proto.NameKindMutex {
			return fmt.Sprintf("entry %d is READY and not whole: %v", e, s.mem[e:e+namesEntry])
		}
		units := make([]uint16, n)
		for k := range units {
			units[k] = uint16(s.mem[at+int32(k/2)] >> (16 * (k % 2)))
		}
		name := string(utf16.Decode(units))
		if name != "db" && name != "x" || seen[name] {
			return fmt.Sprintf("entry %d is READY with the name %q: not one of the scenario's, or twice", e, name)
		}
		seen[name] = true
		if name == "db" && db.e != 0 && db.e != e {
			return fmt.Sprintf("\"db\" is READY at entry %d, but its creators got %d", e, db.e)
		}
	}
	if db.e != 0 && !seen["db"] {
		return "a creator got \"db\", and no READY entry is \"db\""
	}
	return ""
}

var namesScenario = &scenario{
	name:  "Names: two agents create one name, one ends at a step of it, a third creates another",
	roles: []role{{idle, 0}, {nameCreator("db", true), 1}, {nameCreator("db", false), 2}, {nameCreator("x", false), 3}},
	words: namesWords, steps: 200,
	init: func(s *sched) {
		s.names = map[int]nameGot{}
		s.mem[0], s.mem[1], s.mem[3] = namesEntries, namesN, namesArena
	},
	check: namesChecked,
	onEnd: makerNews,
	jumps: true,
}

// A name whose creator ended before the schedule, mid-creation (claimed,
// never published): the two agents that need it take over the claim or
// void it, and one creates the name.
var namesClaimedByDead = &scenario{
	name:  "Names: a creator ended holding a claim, two agents create the name",
	roles: []role{{idle, 0}, {func(s *sched, a *sagent) { s.endNow(a) }, 1}, {nameCreator("db", false), 2}, {nameCreator("db", false), 3}},
	words: namesWords, steps: 200,
	init: func(s *sched) {
		s.names = map[int]nameGot{}
		s.mem[0], s.mem[1], s.mem[3] = namesEntries, namesN, namesArena
		// "db"'s first probe: FNV-1a of its bytes, as names.go hashes them.
		h := uint32(2166136261)
		for _, c := range []byte{'d', 0, 'b', 0} {
			h = (h ^ uint32(c)) * 16777619
		}
		e := namesHeader + int32(h&(namesEntries-1))*namesEntry
		s.mem[e], s.mem[2] = s.agents[1].a.ID, 1
	},
	check: namesChecked,
	onEnd: makerNews,
	jumps: true,
}

func TestExploreNames(t *testing.T) {
	exploreEnding(t, namesScenario)
	e := &explorer{t: t, h: watchedHost(t)}
	if f, _ := e.bounded(namesClaimedByDead, boundOf(), 400000); f != "" {
		t.Fatalf("%s: %s", namesClaimedByDead.name, f)
	}
	t.Logf("%s, ≤ %d preemptions: all %d schedules pass", namesClaimedByDead.name, boundOf(), e.runs)
}
