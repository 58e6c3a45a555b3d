//go:build js && wasm

package sabsync

import (
	"encoding/binary"
	"strconv"
	"strings"
	"syscall/js"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Names where users read them: Snapshot's WaitState.Name and the
// DeadlockError's message say a primitive by name's name, as the glue's
// snapshot() and deadlock errors do (jsglue/names.js's nameAt,
// jsglue/watch.js's namedMembers). The module keeps no names: the core
// marks a wait whose primitive is in the registry's memory (where only
// primitives by name live), and the name is read from the table here.

// nameAt is the name of the primitive by name whose first slot is index in
// the registry this program joined; false if none. It reads the table's
// entries in one copy (a call into JavaScript per slot would cost
// milliseconds per thousand names), on these cold paths only; a READY
// entry's fields are final.
func nameAt(index int32) (string, bool) {
	if registry == nil {
		return "", false
	}
	i32 := registry.i32
	load := func(at int32) int32 { return int32(i32.Index(int(at)).Int()) }
	table := load(proto.RegistryNames)
	if table == 0 {
		return "", false
	}
	first := table + proto.NamesHeader
	n := int(load(table+proto.NamesEntries) * proto.NameSlots)
	b := make([]byte, 4*n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(i32.Get("buffer"), 4*int(first), 4*n))
	for e := 0; e < n; e += int(proto.NameSlots) {
		// (An Int32Array's bytes are the platform's order: little-endian
		// wherever browsers and Node.js run.)
		slot := func(f int32) int32 { return int32(binary.LittleEndian.Uint32(b[4*(e+int(f)):])) }
		if slot(proto.NamePrim) != index || slot(proto.NameState) != proto.NameReady {
			continue
		}
		// Its code units, two a slot, low first (the core's storeBytes).
		at, units := load(first+int32(e)+proto.NameName), load(first+int32(e)+proto.NameLength)
		u := make([]uint16, units)
		for k := range u {
			u[k] = uint16(uint32(load(at+int32(k/2))) >> (16 * (k % 2)))
		}
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// namedMembers is msg, the core's deadlock message, with each member that
// waits for a primitive by name saying its name (`the Mutex "db"`, `the
// RWMutex "db" (write)`) where the core gives its index. Which memory a
// member's index is in is what its registry record says (the snapshot's
// inRegistry), read now: the other members are still asleep in the cycle,
// which only this program's release ends; this program's own wait is s's.
// A message not as the core writes it is left as it is.
func namedMembers(msg string, s slots) string {
	const head = "deadlock: "
	rest, ok := strings.CutPrefix(msg, head)
	if !ok {
		return msg
	}
	rows := map[int32]*snapshotRow{}
	for _, r := range snapshotRows() {
		rows[r.num(2)] = &r
	}
	var out strings.Builder
	out.WriteString(head)
	for {
		m, ok := parseMember(rest)
		if !ok {
			return msg
		}
		named := false
		if r := rows[m.id]; m.id == agentID {
			named = s.mem == registry.mem && s.at == m.index
		} else if r != nil {
			named = r[1] == m.kind+m.mode && r.num(4) == m.index && r.num(9) == 1
		}
		name := ""
		if named {
			name, named = nameAt(m.index)
		}
		if named {
			out.WriteString(m.who + m.kind + " " + jsonQuote(name) + m.mode + m.holds + m.end)
		} else {
			out.WriteString(rest[:m.n])
		}
		rest = rest[m.n:]
		if m.end == ". " {
			return out.String() + rest
		}
	}
}

// member is one member of a deadlock's message (internal/core/watch.go's
// cycleText): `agent 7 ("w1") waits for the ` (who), `RWMutex` (kind), `
// (write)` (mode), ` at index 81234` (index), `, which agent 8 ("w2")
// holds` (holds), then `; ` or `. ` (end); n bytes of the message in all.
type member struct {
	id, index       int32
	who, kind, mode string
	holds, end      string
	n               int
}

// parseMember parses the member at the start of s.
func parseMember(s string) (m member, ok bool) {
	p := 0
	digits := func() (int32, bool) {
		q := p
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
		v, err := strconv.ParseInt(s[q:p], 10, 32)
		return int32(v), err == nil
	}
	// label: `agent 7`, or `agent 7 ("name")`, the name as the core quotes it.
	label := func() (int32, bool) {
		if !strings.HasPrefix(s[p:], "agent ") {
			return 0, false
		}
		p += len("agent ")
		id, ok := digits()
		if strings.HasPrefix(s[p:], ` ("`) {
			for p += 3; p < len(s) && s[p] != '"'; p++ {
				if s[p] == '\\' {
					p++
				}
			}
			if !strings.HasPrefix(s[p:], `")`) {
				return 0, false
			}
			p += 2
		}
		return id, ok
	}
	expect := func(t string) bool {
		if !strings.HasPrefix(s[p:], t) {
			return false
		}
		p += len(t)
		return true
	}
	if m.id, ok = label(); !ok || !expect(" waits for the ") {
		return m, false
	}
	m.who = s[:p]
	k := strings.Index(s[p:], " at index ")
	if k < 0 {
		return m, false
	}
	m.kind, m.mode = s[p:p+k], ""
	if i := strings.IndexByte(m.kind, ' '); i >= 0 {
		m.kind, m.mode = m.kind[:i], m.kind[i:]
	}
	p += k + len(" at index ")
	if m.index, ok = digits(); !ok {
		return m, false
	}
	q := p
	if !expect(", which ") {
		return m, false
	}
	if _, ok = label(); !ok || !expect(" holds") {
		return m, false
	}
	m.holds = s[q:p]
	for _, end := range []string{"; ", ". "} {
		if expect(end) {
			m.end, m.n = end, p
			return m, true
		}
	}
	return m, false
}
