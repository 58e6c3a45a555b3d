package mapcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sabmutex/sabmutex/internal/core"
)

const root = "../../.."

// words are named in backticks but are not this repository's: nothing to
// look for.
var words = map[string]string{
	"true":       "a JavaScript value",
	"false":      "a JavaScript value",
	"import":     "JavaScript's keyword",
	"require":    "Node.js's CommonJS loader",
	"sync":       "Go's package",
	"syscall/js": "Go's package",
	"main":       "Go's package main",
	"sabmutex:":  "the prefix of every error message",
}

// platform: the web platform's names, which the map names as the glue's
// tools.
var platform = map[string]bool{
	"SharedArrayBuffer": true, "BroadcastChannel": true, "AbortSignal": true,
	"Atomics.wait": true, "Atomics.waitAsync": true, "Atomics.notify": true,
	"Atomics.compareExchange": true, "Atomics.load": true, "Atomics.store": true,
}

var (
	backticked = regexp.MustCompile("`([^`]*)`")
	link       = regexp.MustCompile(`\]\(([^)\s#]+)(#[^)]*)?\)`)
	sourceExt  = regexp.MustCompile(`\.(go|js|mjs|cjs)$`)
	fileExt    = regexp.MustCompile(`\.(go|js|mjs|cjs|md|wasm|ts|json|html)$`)
	upper      = regexp.MustCompile(`^\*?[A-Z][A-Z0-9_]*\*?$|^\*_[A-Z0-9_]+$`)
	symbol     = regexp.MustCompile(`^([#_$A-Za-z][\w$]*)(\.[#_$A-Za-z][\w$]*)?(\(.*\))?$`)
	sentEnd    = regexp.MustCompile(`[.;](\s|$)`)
	// rightBehind is what may stand between a name and the file that says
	// where it is: `f` (`file`), `f` in `file`.
	rightBehind = regexp.MustCompile(`^\s*(\(|,?\s*in)\s*$`)
)

// A segment is a paragraph, a list item or a table cell.
type segment struct {
	line     int // of its first line
	text     string
	masked   string     // text with each backticked text replaced by x's
	scope    []*segment // whose folders count for its paths: itself first
	section  *section
	mentions []*mention
	dirs     []string // folders it names, relative to the root
}

type section struct {
	segments []*segment
}

type mention struct {
	text string
	line int
	at   int // offset of the opening backtick in seg.text
	end  int // offset after the closing backtick
	sent int // which sentence of the segment
	seg  *segment
	path string // when a path: what it resolved to ("" if unresolved)
}

// TestMapNamesWhatIsThere reads ARCHITECTURE.md and checks each text it
// names in backticks (code blocks aside), and each link, against the tree.
// The rules, in the order they are tried:
//
//   - a word of the allowlist below (a JavaScript or Go keyword, a package
//     of Go's, the errors' prefix) or a name of the web platform
//     (`Atomics.wait`, `SharedArrayBuffer`, ...): nothing to check;
//   - `make` and `make X`: X is a target of the Makefile; `-flag`: the
//     Makefile passes it;
//   - a path (it has a slash or a file's extension; `*` globs, and a
//     leading `_` means "a name ending so"): it exists relative to the
//     repository's root, else to a folder its scope names (a table cell:
//     the cell, its column's header, its row's first cell; a paragraph or
//     list item: itself), else to a folder its section names; a path under
//     dist/, or a name only the build makes, must be one the Makefile
//     makes;
//   - an UPPER_CASE name (or a glob of one, `*_AT`): a constant the core
//     publishes (core.Protocol, internal/core/publish.go);
//   - `core.X`: the module exports X (//go:wasmexport, internal/abi);
//     `sabmutex.X`: jsglue/api.js's apiObject lists X;
//   - any other name, `f`, `f(...)`, `T.m` or `x.m` (a one-letter x stands
//     for any primitive, so only m is looked for): it is defined (a Go
//     func, method, type, const or var; a JavaScript function, class,
//     method or binding) in the source file the text says it is in: the
//     one in parentheses or after "in" right behind it, else the one it
//     belongs to (owner: the last named before it in its sentence, at its
//     depth of parentheses, a parenthesis belonging to the file before
//     it); when neither, somewhere in a folder its scope names, else
//     anywhere in the repository's .go and .js files.
//
// A failure names the line and the stale text.
func TestMapNamesWhatIsThere(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkMap(t, string(doc)) {
		t.Error(p)
	}
}

// checkMap returns one sentence per stale item of doc.
func checkMap(t *testing.T, doc string) []string {
	tr := readTree(t)
	sections := parse(doc)
	var problems []string
	fail := func(m *mention, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("ARCHITECTURE.md:%d: `%s` ", m.line, m.text)+fmt.Sprintf(format, args...))
	}

	for i, line := range strings.Split(doc, "\n") {
		for _, l := range link.FindAllStringSubmatch(line, -1) {
			if !strings.Contains(l[1], "://") && !tr.exists(l[1]) {
				problems = append(problems, fmt.Sprintf("ARCHITECTURE.md:%d: the link to %s leads nowhere", i+1, l[1]))
			}
		}
	}

	// The folders each segment names outright (paths from the root).
	for _, s := range sections {
		for _, g := range s.segments {
			for _, m := range g.mentions {
				if tr.isPath(m.text) && tr.exists(m.text) {
					g.dirs = append(g.dirs, tr.dirOf(m.text))
				}
			}
		}
	}
	// Paths.
	for _, s := range sections {
		for _, g := range s.segments {
			for _, m := range g.mentions {
				if _, ok := words[m.text]; ok || platform[m.text] || !tr.isPath(m.text) {
					continue
				}
				m.path = tr.resolve(m.text, g.bases())
				switch {
				case m.path != "":
					g.dirs = append(g.dirs, tr.dirOf(m.path))
				case tr.built(m.text):
				default:
					fail(m, "is not a file or folder of the repository (looked in the root and the %d folders its text and section name), nor one the Makefile builds", len(g.bases())-1)
				}
			}
		}
	}
	// Everything else.
	for _, s := range sections {
		for _, g := range s.segments {
			for i, m := range g.mentions {
				text := m.text
				if _, ok := words[text]; ok || platform[text] || tr.isPath(text) || text == "" {
					continue
				}
				switch {
				case text == "make":
				case strings.HasPrefix(text, "make "):
					if !tr.targets[strings.TrimPrefix(text, "make ")] {
						fail(m, "is not a target of the Makefile")
					}
				case strings.HasPrefix(text, "-"):
					if !strings.Contains(tr.makefile, text) {
						fail(m, "is not a flag the Makefile passes")
					}
				case upper.MatchString(text):
					if !tr.published(text) {
						fail(m, "is not a constant the core publishes (internal/core/publish.go)")
					}
				case symbol.MatchString(text):
					checkSymbol(tr, g, i, fail)
				default:
					fail(m, "is neither a path, a make target, a published constant nor a symbol: add a rule or an entry to words in internal/testing/mapcheck/map_test.go")
				}
			}
		}
	}
	return problems
}

// checkSymbol checks g.mentions[i], a name.
func checkSymbol(tree *tree, g *segment, i int, fail func(*mention, string, ...any)) {
	m := g.mentions[i]
	parts := symbol.FindStringSubmatch(m.text)
	name, member := parts[1], strings.TrimPrefix(parts[2], ".")
	switch {
	case name == "core" && member != "":
		if !tree.exports[member] {
			fail(m, "is not an export of the module (//go:wasmexport, internal/abi/exports.go)")
		}
		return
	case name == "sabmutex" && member != "":
		if !tree.api[member] {
			fail(m, "is not in the API object (jsglue/api.js, apiObject)")
		}
		return
	case member != "" && len(name) == 1:
		name, member = member, "" // x.m: any primitive's m
	}
	want := name
	if member != "" {
		want = name + "." + member
	}

	// The file the text says it is in.
	var where *mention
	if i+1 < len(g.mentions) {
		next := g.mentions[i+1]
		if next.sent == m.sent && next.path != "" && rightBehind.MatchString(g.text[m.end:next.at]) {
			where = next
		}
	}
	if where == nil {
		where = owner(g, i)
	}
	if where != nil {
		if !tree.defines(where.path, want) {
			fail(m, "is not defined in %s (the file the text names for it, line %d)", where.path, where.line)
		}
		return
	}
	// The folders its sentence names (and, in a table, its column's header
	// and its row's first cell), else anywhere.
	var dirs []string
	for _, o := range g.mentions {
		if o.sent == m.sent && o.path != "" {
			dirs = append(dirs, tree.dirOf(o.path))
		}
	}
	for _, s := range g.scope[1:] {
		dirs = append(dirs, s.dirs...)
	}
	if len(dirs) > 0 {
		if !tree.definesUnder(dirs, want) {
			fail(m, "is not defined in any .go or .js file under %s (the folders its text names)", strings.Join(dedup(dirs), ", "))
		}
		return
	}
	if !tree.definesUnder([]string{"."}, want) {
		fail(m, "is not defined in any .go or .js file of the repository")
	}
}

// owner: the source file that g's text puts g.mentions[i] in, when it
// says none right behind it: the last one named before it at its depth of
// parentheses, in its sentence there. A parenthesis hangs on the file
// before it (`api.js` (`initAgent`, ...; `forWorker`): both in api.js),
// and a sentence's end inside it (`.` or `;`) goes back to that file; a
// file named inside a parenthesis is not the owner of what follows it
// outside. Nil when there is none.
func owner(g *segment, i int) *mention {
	m := g.mentions[i]
	cur := []*mention{nil} // the owner at each depth of parentheses
	j := 0                 // the next mention to pass
	for k := 0; k < m.at; k++ {
		if j < len(g.mentions) && k == g.mentions[j].at {
			if p := g.mentions[j].path; p != "" && sourceExt.MatchString(p) {
				cur[len(cur)-1] = g.mentions[j]
			}
			k = g.mentions[j].end - 1
			j++
			continue
		}
		d := len(cur) - 1
		switch c := g.masked[k]; {
		case c == '(':
			cur = append(cur, cur[d])
		case c == ')' && d > 0:
			cur = cur[:d]
		case (c == '.' || c == ';') && (k+1 == len(g.masked) || strings.ContainsRune(" \t\n", rune(g.masked[k+1]))):
			if d > 0 {
				cur[d] = cur[d-1]
			} else {
				cur[0] = nil
			}
		}
	}
	return cur[len(cur)-1]
}

// isPath: s has a slash or a file's extension, or is a folder of the root.
func (tr *tree) isPath(s string) bool {
	if strings.ContainsAny(s, " (") {
		return false
	}
	return strings.Contains(s, "/") || fileExt.MatchString(s) || tr.dirs[s]
}

// bases: where g's paths may be relative to: the root, the folders its
// scope names, then those its section names.
func (g *segment) bases() []string {
	b := []string{"."}
	for _, s := range g.scope {
		b = append(b, s.dirs...)
	}
	for _, s := range g.section.segments {
		b = append(b, s.dirs...)
	}
	return dedup(b)
}

func dedup(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// parse splits doc into sections (at headings) and segments: paragraphs,
// list items, and table cells, each cell scoped with its column's header
// and its row's first cell. Code blocks are skipped.
func parse(doc string) []*section {
	var sections []*section
	sec := &section{}
	sections = append(sections, sec)
	var cur *segment
	var header []*segment // the current table's header cells
	inTable, inCode := false, false
	flush := func() {
		if cur != nil {
			sec.segments = append(sec.segments, cur)
			cur = nil
		}
	}
	for n, line := range strings.Split(doc, "\n") {
		lineNo := n + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			inCode = !inCode
			continue
		case inCode:
			continue
		case trimmed == "":
			flush()
			inTable = false
			continue
		case strings.HasPrefix(trimmed, "#"):
			flush()
			inTable = false
			sec = &section{}
			sections = append(sections, sec)
			continue
		case strings.HasPrefix(trimmed, "|"):
			flush()
			cells := strings.Split(strings.Trim(trimmed, "|"), "|")
			if strings.Trim(trimmed, "|-: ") == "" {
				continue // the separator row
			}
			var row []*segment
			for _, c := range cells {
				row = append(row, &segment{line: lineNo, text: c, section: sec})
			}
			if !inTable {
				header = row
				inTable = true
			}
			for k, c := range row {
				c.scope = []*segment{c}
				if k < len(header) && header[k] != c {
					c.scope = append(c.scope, header[k])
				}
				if k > 0 {
					c.scope = append(c.scope, row[0])
				}
				sec.segments = append(sec.segments, c)
			}
			continue
		case strings.HasPrefix(trimmed, "- ") || regexp.MustCompile(`^\d+\. `).MatchString(trimmed):
			flush()
		}
		if cur == nil {
			cur = &segment{line: lineNo, section: sec}
			cur.scope = []*segment{cur}
		} else {
			cur.text += "\n"
		}
		cur.text += line
	}
	flush()
	for _, s := range sections {
		for _, g := range s.segments {
			g.mentions = mentions(g)
		}
	}
	return sections
}

// mentions finds g's backticked texts, with their lines and sentences.
func mentions(g *segment) []*mention {
	masked := backticked.ReplaceAllStringFunc(g.text, func(s string) string { return strings.Repeat("x", len(s)) })
	g.masked = masked
	ends := sentEnd.FindAllStringIndex(masked, -1)
	var out []*mention
	for _, loc := range backticked.FindAllStringSubmatchIndex(g.text, -1) {
		m := &mention{
			text: g.text[loc[2]:loc[3]],
			at:   loc[0],
			end:  loc[1],
			line: g.line + strings.Count(g.text[:loc[0]], "\n"),
			seg:  g,
		}
		for _, e := range ends {
			if e[0] < loc[0] {
				m.sent++
			}
		}
		out = append(out, m)
	}
	return out
}

// tree is what the map is checked against.
type tree struct {
	files    map[string]bool            // every file, relative to the root
	dirs     map[string]bool            // every folder
	defs     map[string]map[string]bool // source file → the names it defines
	targets  map[string]bool            // the Makefile's
	makefile string
	exports  map[string]bool // the module's
	api      map[string]bool // apiObject's entries
	consts   map[string]int  // the published constants
}

var (
	jsClass  = regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?class\s+([\w$]+)`)
	jsMethod = regexp.MustCompile(`^  (?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?\*?(#?[\w$]+)\s*\(.*\{\s*$`)
	jsFunc   = regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)`)
	jsBind   = regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*=`)
	jsAssign = regexp.MustCompile(`^([A-Z][\w$]*)\.([\w$]+)\s*=`)
	wasmExp  = regexp.MustCompile(`(?m)^//go:wasmexport (\w+)`)
	target   = regexp.MustCompile(`(?m)^([\w./-]+(?:[ \t]+[\w./-]+)*)[ \t]*:([^=]|$)`)
	keywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "function": true}
)

func readTree(t *testing.T) *tree {
	tr := &tree{
		files: map[string]bool{}, dirs: map[string]bool{".": true},
		defs: map[string]map[string]bool{}, targets: map[string]bool{},
		exports: map[string]bool{}, api: map[string]bool{}, consts: map[string]int{},
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || rel == "dist") {
				return filepath.SkipDir
			}
			tr.dirs[rel] = true
			return nil
		}
		tr.files[rel] = true
		if sourceExt.MatchString(rel) {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tr.defs[rel] = definitions(t, rel, src)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	tr.makefile = string(mk)
	for _, m := range target.FindAllStringSubmatch(tr.makefile, -1) {
		for _, name := range strings.Fields(m[1]) {
			tr.targets[name] = true
		}
	}
	exp, err := os.ReadFile(filepath.Join(root, "internal/abi/exports.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range wasmExp.FindAllStringSubmatch(string(exp), -1) {
		tr.exports[m[1]] = true
	}
	api, err := os.ReadFile(filepath.Join(root, "jsglue/api.js"))
	if err != nil {
		t.Fatal(err)
	}
	obj := string(api)
	if i := strings.Index(obj, "export function apiObject("); i >= 0 {
		obj = obj[i:]
		if j := strings.Index(obj, "return api;"); j >= 0 {
			obj = obj[:j]
		}
		for _, m := range regexp.MustCompile(`(?m)^\s+(?:get\s+)?([\w$]+)\s*[,:(]`).FindAllStringSubmatch(obj, -1) {
			tr.api[m[1]] = true
		}
	}
	for name, v := range core.Protocol() {
		tr.consts[name] = v.(int)
	}
	return tr
}

// definitions lists the names a source file defines; a method also as
// Type.method.
func definitions(t *testing.T, rel string, src []byte) map[string]bool {
	defs := map[string]bool{}
	if strings.HasSuffix(rel, ".go") {
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				defs[d.Name.Name] = true
				if d.Recv != nil && len(d.Recv.List) == 1 {
					defs[receiver(d.Recv.List[0].Type)+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						defs[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							defs[n.Name] = true
						}
					}
				}
			}
		}
		for _, m := range wasmExp.FindAllStringSubmatch(string(src), -1) {
			defs[m[1]] = true
		}
		return defs
	}
	class := ""
	for _, line := range strings.Split(string(src), "\n") {
		if m := jsClass.FindStringSubmatch(line); m != nil {
			class = m[1]
			defs[class] = true
			continue
		}
		if line == "}" {
			class = ""
		}
		if m := jsMethod.FindStringSubmatch(line); m != nil && class != "" && !keywords[m[1]] {
			defs[m[1]] = true
			defs[class+"."+m[1]] = true
		}
		for _, re := range []*regexp.Regexp{jsFunc, jsBind} {
			if m := re.FindStringSubmatch(line); m != nil {
				defs[m[1]] = true
			}
		}
		if m := jsAssign.FindStringSubmatch(line); m != nil {
			defs[m[2]] = true
			defs[m[1]+"."+m[2]] = true
		}
	}
	return defs
}

func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func (tr *tree) exists(p string) bool {
	p = path.Clean(p)
	if strings.Contains(p, "*") {
		return len(tr.glob(p)) > 0
	}
	return tr.files[p] || tr.dirs[p]
}

func (tr *tree) glob(pattern string) []string {
	var out []string
	for f := range tr.files {
		if ok, _ := path.Match(pattern, f); ok {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// resolve finds p under the first of bases that has it.
func (tr *tree) resolve(p string, bases []string) string {
	if strings.HasPrefix(p, "_") {
		p = "*" + p // a name ending so
	}
	for _, b := range bases {
		q := path.Join(b, p)
		if tr.exists(q) {
			return q
		}
	}
	return ""
}

// dirOf: p itself when a folder, else the folder it is in.
func (tr *tree) dirOf(p string) string {
	p = path.Clean(p)
	if tr.dirs[p] {
		return p
	}
	return path.Dir(p)
}

// built: the Makefile makes p (a path under dist/, or the name of one).
func (tr *tree) built(p string) bool {
	p = strings.TrimPrefix(path.Clean(p), "dist/")
	if p == "dist" {
		return strings.Contains(tr.makefile, "dist/")
	}
	return regexp.MustCompile(`dist/(\S*/)?` + regexp.QuoteMeta(p) + `\b`).MatchString(tr.makefile)
}

func (tr *tree) published(name string) bool {
	for c := range tr.consts {
		if ok, _ := path.Match(name, c); ok {
			return true
		}
	}
	return false
}

func (tr *tree) defines(file, name string) bool { return tr.defs[file][name] }

func (tr *tree) definesUnder(dirs []string, name string) bool {
	for f, defs := range tr.defs {
		for _, d := range dirs {
			if (d == "." || f == d || strings.HasPrefix(f, d+"/")) && defs[name] {
				return true
			}
		}
	}
	return false
}

// TestMapCheckCatchesStale is the twin: a map with stale entries of each
// kind fails, naming each.
func TestMapCheckCatchesStale(t *testing.T) {
	doc := "# A stale map\n\n" +
		"The blocking loop (`internal/core/wait.go`, `waitBlocking`).\n\n" +
		"| folder | what |\n| --- | --- |\n" +
		"| `internal/core/` | `mutex.go`, `nosuch.go`, `lockStep` in `chan.go` |\n" +
		"| `jsglue/` | `mutex.js` (`Mutex.lock`, `Mutex.noSuchMethod`), `core.noSuchExport` |\n" +
		"| `jsglue/` | `api.js` (`initAgent`; `lockTurn`), `mutex.js` (`Mutex.unlock`) |\n\n" +
		"Run `make no-such-target` with `-no-such-flag`; `NO_SUCH_CONST`, `*_NO_SUCH`, " +
		"`noSuchSymbolAnywhere`, `sabmutex.noSuchEntry`, `a ? b`; [gone](docs/gone.md).\n"
	want := []string{
		":3: `waitBlocking` is not defined in internal/core/wait.go",
		":7: `nosuch.go` is not a file or folder",
		":7: `lockStep` is not defined in internal/core/chan.go",
		":8: `Mutex.noSuchMethod` is not defined in jsglue/mutex.js",
		":8: `core.noSuchExport` is not an export",
		":9: `lockTurn` is not defined in jsglue/api.js",
		":11: `make no-such-target` is not a target",
		":11: `-no-such-flag` is not a flag",
		":11: `NO_SUCH_CONST` is not a constant the core publishes",
		":11: `*_NO_SUCH` is not a constant the core publishes",
		":11: `noSuchSymbolAnywhere` is not defined in any .go or .js file of the repository",
		":11: `sabmutex.noSuchEntry` is not in the API object",
		":11: `a ? b` is neither",
		":11: the link to docs/gone.md leads nowhere",
	}
	got := checkMap(t, doc)
	for _, w := range want {
		found := false
		for _, p := range got {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("no problem reported with %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}
