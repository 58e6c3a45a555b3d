package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// jsglue/protocol.js is what internal/core publishes: make dist rewrites it, and
// a commit that changed the core without it fails here.
func TestProtocolModuleIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../jsglue/protocol.js")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != protocolModule() {
		t.Fatal("jsglue/protocol.js is not what internal/core publishes: run `make dist` and commit it")
	}
}

// internal/proto/proto.go likewise.
func TestProtoGoIsCurrent(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("../../jsglue", protoGoPath))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != protoGo() {
		t.Fatal("internal/proto/proto.go is not what internal/core publishes: run `make dist` and commit it")
	}
}

// jsglue/messages.js likewise, from internal/proto/messages.go.
func TestMessagesModuleIsCurrent(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("../../jsglue", messagesGoPath))
	if err != nil {
		t.Fatal(err)
	}
	want, err := messagesModule(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("../../jsglue/messages.js"); err != nil || string(b) != want {
		t.Fatal("jsglue/messages.js is not internal/proto/messages.go's texts: run `make dist` and commit it")
	}
}

// The linker orders modules by their imports, and refuses what it cannot
// link faithfully.
func TestLink(t *testing.T) {
	write := func(files map[string]string) string {
		dir := t.TempDir()
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	out, err := linkModules(write(map[string]string{
		"entry.js": "import { b } from \"./b.js\";\nexport const entry = b + P.RESULT_OK;\nimport * as P from \"./protocol.js\";\n",
		"b.js":     "import { a } from \"./a.js\";\nexport const b = a + 1;\n",
		"a.js":     "export const a = 1;\n",
	}), "entry.js")
	if err != nil {
		t.Fatal(err)
	}
	if ia, ib, ie := strings.Index(out, "const a = 1"), strings.Index(out, "const b = a + 1"), strings.Index(out, "export const entry = b + -1 /* P.RESULT_OK */"); ia < 0 || ib < ia || ie < ib {
		t.Errorf("not linked dependencies first, with the entry's export kept and P.RESULT_OK as its value:\n%s", out)
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"cycle", map[string]string{"entry.js": "import { a } from \"./a.js\";\n", "a.js": "import { b } from \"./entry.js\";\nexport const a = 1;\n"}, "cycle"},
		{"missing export", map[string]string{"entry.js": "import { a } from \"./a.js\";\n", "a.js": "const a = 1;\n"}, "does not export"},
		{"one scope", map[string]string{"entry.js": "import { a } from \"./a.js\";\nfunction f() {}\n", "a.js": "export const a = 1;\nfunction f() {}\n"}, "both declare f"},
		{"host's name", map[string]string{"entry.js": "let exports = null;\n"}, "hide the host's"},
		{"renamed import", map[string]string{"entry.js": "import { a as b } from \"./a.js\";\n", "a.js": "export const a = 1;\n"}, "without `as`"},
		{"unknown constant", map[string]string{"entry.js": "import * as P from \"./protocol.js\";\nP.NO_SUCH;\n"}, "does not publish"},
		{"default import", map[string]string{"entry.js": "import a from \"./a.js\";\n", "a.js": "export default 1;\n"}, "does not know"},
	} {
		if _, err := linkModules(write(c.files), "entry.js"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// The public API is listed once, in api.js's apiObject (api.go); module.js's
// named exports, classic.js's CommonJS exports and the values sabmutex.d.ts
// declares name the same things, each in its own syntax: an entry point
// that forgot a new name, or types that forgot it, fail here.
func TestAPIListedOnce(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("../../jsglue", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	names, err := apiNames(read("api.js"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(sorted(names), " ")
	var esm []string // export { a, b as c };
	for _, m := range regexp.MustCompile(`(?m)^export \{([^}]*)\};`).FindAllStringSubmatch(read("module.js"), -1) {
		for _, part := range strings.Split(m[1], ",") {
			f := strings.Fields(part)
			esm = append(esm, f[len(f)-1])
		}
	}
	var cjs []string // exports.a = ...; Object.defineProperty(exports, "b", ...)
	for _, m := range regexp.MustCompile(`exports\.(\w+) =|defineProperty\(exports, "(\w+)"`).FindAllStringSubmatch(read("classic.js"), -1) {
		cjs = append(cjs, m[1]+m[2])
	}
	var dts []string // export function a / const b / class C
	for _, m := range regexp.MustCompile(`(?m)^export (?:declare )?(?:function|const|class) (\w+)`).FindAllStringSubmatch(read("sabmutex.d.ts"), -1) {
		dts = append(dts, m[1])
	}
	for _, l := range []struct {
		where string
		names []string
	}{{"module.js's named exports", esm}, {"classic.js's exports", cjs}, {"sabmutex.d.ts's declarations", dts}} {
		if got := strings.Join(sorted(slices.Compact(sorted(l.names))), " "); got != want {
			t.Errorf("%s name\n\t%s\nwhere api.js's apiObject names\n\t%s", l.where, got, want)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
