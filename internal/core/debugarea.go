package core

// The debug area: where the agents of a registry made in debug mode
// (init({ debug }) on its maker) say where they took what they hold, where
// they wait, and in which order they took their locks, so that any agent
// can read it: the collector that finds lock-order inversions and locks
// held too long (jsglue/debug.js), the snapshot and the deadlock messages.
// It is defined here, once; its writers are the glue (jsglue/debugarea.js,
// in JavaScript, so that none of it weighs on sabmutex.wasm) and sabsync
// (these functions), its readers the glue and the core tests (whose
// TestExploreDebug* explore it), and browsertest's TestDebugGoAgentLockOrder
// checks that the glue and sabsync agree.
//
// A registry in debug mode is a longer buffer: registrySlots slots, then
// this area (debugSlots). Its header:
//
//	0  debugMagic: the area is set up (written by the maker, before anyone joins)
//	1  heldMs: a hold longer than this is reported (0: never)
//
// then debugRegions regions of regionSlots, the n-th for the n-th agent to
// join (an agent past debugRegions records nothing). A region has one
// writer, its agent, and any number of readers; what is in it:
//
//	0  dEdges: how many edges are published; an edge is written whole
//	   before this counts it, and never changes after (append-only)
//	1  dTextUsed: how many slots of the text are written (the writer's own)
//	marks (dMarks): markEntries marks of markSlots, what the agent holds or
//	   waits for now: {key, mode, label, site, since, gen}. gen counts the
//	   marks made there: a mark is made (only where the key is 0) by
//	   adding 1 to gen first, then writing the other fields, the key last;
//	   it is cleared by writing 0 to its key (its fields stay). A reader
//	   reads gen, then the key (0: no mark), then the other fields, then
//	   gen again: unchanged, they are the fields of one mark, whole (the
//	   key it read was written last by the mark that gen counted, and no
//	   mark has been made there since). The key read twice cannot tell: a
//	   mark cleared and made again for the same lock between the reader's
//	   two reads of it (a wait that ends, then the hold: the same place,
//	   the same key) passes, with the wait's mode and the hold's since.
//	edges (dEdgeList): edgeEntries edges of edgeSlots, each "took to while
//	   holding from": {from key, to key, modes, from label, from site,
//	   to label, to site} (modes: from's mode | to's mode << 2)
//	text (dText): textSlots slots of texts: a text is its length in bytes,
//	   then its UTF-8 bytes, four a slot (storeBytes); a text's ref is its
//	   first slot + 1 (0: none). Written before any mark or edge names it.
//
// A lock's key is a hash (DebugKey) of what identifies it across agents
// (see the README's "Debugging"): `Mutex "accounts"` for a lock named
// accounts (its type, a space, its name quoted as JSON), else
// `Mutex @4/4096`: its type, its first slot in its buffer and the buffer's
// length in bytes. Its label is how messages name it.
//
// Modes of a mark, and of an edge's ends:
//
//	| mode       | the agent ...                          | set by        | cleared by     |
//	| markHold   | holds it (a Mutex, an RWMutex to write,| an acquisition| its release    |
//	|            | a Once while its fn runs)              |               |                |
//	| markRead   | holds a read lock of the RWMutex       | rlock         | runlock        |
//	| markWait   | waits for it                           | a wait begins | the wait ends  |
const (
	debugMagic     = 0x53414244 // "SABD"
	dHeldMs        = 1
	debugHeaderLen = 4

	dEdges      = 0
	dTextUsed   = 1
	dMarks      = 2
	markEntries = 32
	markSlots   = 6
	dEdgeList   = dMarks + markEntries*markSlots
	edgeEntries = 256
	edgeSlots   = 7
	dText       = dEdgeList + edgeEntries*edgeSlots
	textSlots   = 4096
	regionSlots = dText + textSlots

	debugRegions = 64
	debugSlots   = debugHeaderLen + debugRegions*regionSlots

	// The fields of a mark and of an edge.
	mKey, mMode, mLabel, mSite, mSince, mGen                     = 0, 1, 2, 3, 4, 5
	eFrom, eTo, eModes, eFromLabel, eFromSite, eToLabel, eToSite = 0, 1, 2, 3, 4, 5, 6
)

// The modes of a mark.
const (
	markHold = 1
	markRead = 2
	markWait = 3
)

// DebugLayout is the area's layout, for the glue (cmd/jsbundle/link.go writes it
// into protocol.js beside the published constants; the module itself has
// no use for it, so it is not in its published text).
func DebugLayout() map[string]int32 {
	return map[string]int32{
		"DEBUG_MAGIC": debugMagic, "DEBUG_HELD_MS": dHeldMs, "DEBUG_HEADER_LEN": debugHeaderLen,
		"DEBUG_EDGES": dEdges, "DEBUG_TEXT_USED": dTextUsed, "DEBUG_MARKS": dMarks,
		"DEBUG_MARK_ENTRIES": markEntries, "DEBUG_MARK_SLOTS": markSlots,
		"DEBUG_EDGE_LIST": dEdgeList, "DEBUG_EDGE_ENTRIES": edgeEntries, "DEBUG_EDGE_SLOTS": edgeSlots,
		"DEBUG_TEXT": dText, "DEBUG_TEXT_SLOTS": textSlots, "DEBUG_REGION_SLOTS": regionSlots,
		"DEBUG_REGIONS": debugRegions, "DEBUG_SLOTS": debugSlots,
		"MARK_HOLD": markHold, "MARK_READ": markRead, "MARK_WAIT": markWait,
		"MARK_KEY_AT": mKey, "MARK_MODE_AT": mMode, "MARK_LABEL_AT": mLabel, "MARK_SITE_AT": mSite, "MARK_SINCE_AT": mSince, "MARK_GEN_AT": mGen,
		"EDGE_FROM_AT": eFrom, "EDGE_TO_AT": eTo, "EDGE_MODES_AT": eModes, "EDGE_FROM_LABEL_AT": eFromLabel,
		"EDGE_FROM_SITE_AT": eFromSite, "EDGE_TO_LABEL_AT": eToLabel, "EDGE_TO_SITE_AT": eToSite,
		"REGISTRY_HEADER_LEN": registryHeaderLen, "RECORD_SLOTS": recordSlots,
		"REGISTRY_BASE": regBase, "REGISTRY_JOINED": regJoined, "REGISTRY_EPOCH": regEpoch,
		"RECORD_ID": rID, "RECORD_STATE": rState, "AGENT_DEAD": agentDead,
	}
}

// DebugKey is the key of a lock identified by id (FNV-1a; never 0).
func DebugKey(id []byte) int32 {
	h := uint32(2166136261)
	for _, c := range id {
		h = (h ^ uint32(c)) * 16777619
	}
	if h == 0 {
		h = 1
	}
	return int32(h)
}

// DebugMake sets up the debug area of the registry at mem (made, zeroed,
// registrySlots+debugSlots long), before anyone joins it.
func DebugMake(mem, heldMs int32) {
	atomicStore(mem, registrySlots+dHeldMs, heldMs)
	atomicStore(mem, registrySlots, debugMagic)
}

// debugRegion is the first slot of this agent's region, or -1 when its
// registry has no debug area (the host knows: the buffer's length; on) or
// it joined past the first debugRegions.
func debugRegion(on bool) int32 {
	if !on || reg.own < 0 || atomicLoad(reg.mem, registrySlots) != debugMagic {
		return -1
	}
	n := (reg.own-registryHeaderLen)/recordSlots + 1
	if n > debugRegions {
		return -1
	}
	return registrySlots + debugHeaderLen + (n-1)*regionSlots
}

// DebugText writes b to this agent's text in region r (DebugRegion) and
// returns its ref, or 0 when the text has no room left for it.
func DebugText(r int32, b []byte) int32 {
	used := atomicLoad(reg.mem, r+dTextUsed)
	need := 1 + (int32(len(b))+3)/4
	if used+need > textSlots {
		return 0
	}
	at := r + dText + used
	atomicStore(reg.mem, at, int32(len(b)))
	storeBytes(reg.mem, at+1, b)
	atomicStore(reg.mem, r+dTextUsed, used+need)
	return used + 1
}

// DebugMark records in region r that this agent now holds or waits for
// (mode) the lock key, labelled label, at site (both refs), since now.
// False when its marks are all taken.
func DebugMark(r, key, mode, label, site int32) bool {
	for m := r + dMarks; m < r+dEdgeList; m += markSlots {
		if atomicLoad(reg.mem, m+mKey) != 0 {
			continue
		}
		if !brokenMarkGenKept {
			atomicStore(reg.mem, m+mGen, atomicLoad(reg.mem, m+mGen)+1) // first: a reader in the middle of the mark before finds gen changed
		}
		if brokenMarkKeyFirst {
			atomicStore(reg.mem, m+mKey, key)
		}
		atomicStore(reg.mem, m+mMode, mode)
		atomicStore(reg.mem, m+mLabel, label)
		atomicStore(reg.mem, m+mSite, site)
		atomicStore(reg.mem, m+mSince, int32(registryNowMs()))
		atomicStore(reg.mem, m+mKey, key) // last: the mark is whole once its key is there
		return true
	}
	return false
}

// DebugUnmark clears one mark of key in mode from region r, if it has one.
func DebugUnmark(r, key, mode int32) {
	for m := r + dMarks; m < r+dEdgeList; m += markSlots {
		if atomicLoad(reg.mem, m+mKey) == key && atomicLoad(reg.mem, m+mMode) == mode {
			atomicStore(reg.mem, m+mKey, 0)
			return
		}
	}
}

// DebugEdge publishes in region r the order "to taken while from was
// held", from this agent's marks of the two (the mark of to last made,
// where it has several); false when the edges are all taken or a mark is
// missing.
func DebugEdge(r, from, to int32) bool {
	f, t := int32(-1), int32(-1)
	for m := r + dMarks; m < r+dEdgeList; m += markSlots {
		switch k := atomicLoad(reg.mem, m+mKey); {
		case k == from && f < 0 && atomicLoad(reg.mem, m+mMode) != markWait:
			f = m
		case k == to && atomicLoad(reg.mem, m+mMode) != markWait:
			if t < 0 || atomicLoad(reg.mem, m+mSince) >= atomicLoad(reg.mem, t+mSince) {
				t = m
			}
		}
	}
	n := atomicLoad(reg.mem, r+dEdges)
	if f < 0 || t < 0 || n >= edgeEntries {
		return false
	}
	e := r + dEdgeList + n*edgeSlots
	if brokenEdgeCountedFirst {
		atomicStore(reg.mem, r+dEdges, n+1)
	}
	atomicStore(reg.mem, e+eFrom, from)
	atomicStore(reg.mem, e+eTo, to)
	atomicStore(reg.mem, e+eModes, atomicLoad(reg.mem, f+mMode)|atomicLoad(reg.mem, t+mMode)<<2)
	atomicStore(reg.mem, e+eFromLabel, atomicLoad(reg.mem, f+mLabel))
	atomicStore(reg.mem, e+eFromSite, atomicLoad(reg.mem, f+mSite))
	atomicStore(reg.mem, e+eToLabel, atomicLoad(reg.mem, t+mLabel))
	atomicStore(reg.mem, e+eToSite, atomicLoad(reg.mem, t+mSite))
	atomicStore(reg.mem, r+dEdges, n+1) // last: published whole
	return true
}

// DebugRegion is this agent's region (DebugText ...), -1 for none: on says
// whether the host found its registry long enough to have a debug area.
func DebugRegion(on bool) int32 { return debugRegion(on) }

// MarkRead is a mark as a reader reads it whole (see the area's doc).
type MarkRead struct {
	Key, Mode   int32
	Label, Site string
	SinceMs     int32 // when it was made, on the registry's clock
}

// DebugMarksOf is what agent id holds and waits for now, as its region in
// this agent's registry says (on: the host found the debug area; nil when
// it has none, or id no region): the area's reader, in Go (the glue's is
// jsglue/debugarea.js).
func DebugMarksOf(on bool, id int32) []MarkRead {
	if !on || reg.mem < 0 || atomicLoad(reg.mem, registrySlots) != debugMagic {
		return nil
	}
	n := id - atomicLoad(reg.mem, regBase)
	if n < 1 || n > debugRegions || recordOf(id) < 0 {
		return nil
	}
	r := registrySlots + debugHeaderLen + (n-1)*regionSlots
	var out []MarkRead
	for m := r + dMarks; m < r+dEdgeList; m += markSlots {
		gen := atomicLoad(reg.mem, m+mGen)
		key := atomicLoad(reg.mem, m+mKey)
		if key == 0 {
			continue
		}
		d := MarkRead{Key: key, Mode: atomicLoad(reg.mem, m+mMode), SinceMs: atomicLoad(reg.mem, m+mSince)}
		label, site := atomicLoad(reg.mem, m+mLabel), atomicLoad(reg.mem, m+mSite)
		if atomicLoad(reg.mem, m+mGen) != gen {
			continue // marked anew while read
		}
		d.Label, d.Site = debugTextAt(r, label), debugTextAt(r, site)
		out = append(out, d)
	}
	return out
}

// debugTextAt is the text of ref in region r ("" for none).
func debugTextAt(r, ref int32) string {
	if ref <= 0 || ref > textSlots {
		return ""
	}
	at := r + dText + ref - 1
	return string(loadBytes(reg.mem, at+1, min(max(atomicLoad(reg.mem, at), 0), (textSlots-ref)*4)))
}

// The modes of a mark, for hosts: MarkRead.Mode.
const (
	DebugHold = markHold
	DebugRead = markRead
	DebugWait = markWait
)
