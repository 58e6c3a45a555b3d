package main

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sabmutex/sabmutex/internal/core"
)

// The forms of the glue's modules that the linker understands; linkModules
// refuses anything else that looks like an import or export.
var (
	// import { a, b } from "./x.js";
	namedImport = regexp.MustCompile(`(?m)^import \{([^}]*)\} from "\./([a-z_]+\.js)";\n`)
	// import * as P from "./protocol.js";  (P.NAME becomes its value)
	protocolImport = regexp.MustCompile(`(?m)^import \* as P from "\./protocol\.js";\n`)
	anyImport      = regexp.MustCompile(`(?m)^import\b.*$`)
	// A top-level declaration, exported or not.
	declaration = regexp.MustCompile(`(?m)^(export )?(?:async )?(?:function\*?|class|const|let) ([A-Za-z_$][\w$]*)`)
	anyExport   = regexp.MustCompile(`(?m)^export\b.*$`)
	// P.NAME, a constant of protocol.js.
	protocolName = regexp.MustCompile(`\bP\.[A-Z][A-Z0-9_]*\b`)
)

type module struct {
	name    string
	text    string
	imports map[string][]string // module -> names
	exports map[string]bool
	decls   []string
}

func parseModule(dir, name string) (*module, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	m := &module{name: name, text: string(b), imports: map[string][]string{}, exports: map[string]bool{}}
	for _, im := range namedImport.FindAllStringSubmatch(m.text, -1) {
		if im[2] == "protocol.js" {
			return nil, fmt.Errorf("%s: import protocol.js as `import * as P from \"./protocol.js\"`", name)
		}
		for _, n := range strings.Split(im[1], ",") {
			if strings.Contains(n, " as ") {
				return nil, fmt.Errorf("%s: the linker keeps one name per binding: import %q without `as`", name, strings.TrimSpace(n))
			}
			if n = strings.TrimSpace(n); n != "" {
				m.imports[im[2]] = append(m.imports[im[2]], n)
			}
		}
	}
	rest := protocolImport.ReplaceAllString(namedImport.ReplaceAllString(m.text, ""), "")
	if bad := anyImport.FindString(rest); bad != "" {
		return nil, fmt.Errorf("%s: an import the linker does not know: %q", name, bad)
	}
	for _, d := range declaration.FindAllStringSubmatch(m.text, -1) {
		m.decls = append(m.decls, d[2])
		if d[1] != "" {
			m.exports[d[2]] = true
		}
	}
	return m, nil
}

// linkModules links entry and the modules it imports, dependencies first,
// into one scope.
func linkModules(dir, entry string) (string, error) {
	var order []*module
	seen := map[string]bool{}
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		for _, p := range path {
			if p == name {
				return fmt.Errorf("an import cycle: %s -> %s", strings.Join(path, " -> "), name)
			}
		}
		if seen[name] {
			return nil
		}
		m, err := parseModule(dir, name)
		if err != nil {
			return err
		}
		deps := make([]string, 0, len(m.imports))
		for d := range m.imports {
			deps = append(deps, d)
		}
		sort.Strings(deps)
		for _, d := range deps {
			if err := visit(d, append(path, name)); err != nil {
				return err
			}
		}
		seen[name] = true
		order = append(order, m)
		return nil
	}
	if err := visit(entry, nil); err != nil {
		return "", err
	}
	byName := map[string]*module{}
	declaredIn := map[string]string{}
	for _, m := range order {
		byName[m.name] = m
		for _, d := range m.decls {
			if d == "exports" || d == "module" || d == "require" || d == "globalThis" {
				return "", fmt.Errorf("%s declares %s at top level, which would hide the host's (CommonJS's, in the classic bundle): rename it", m.name, d)
			}
			if other, ok := declaredIn[d]; ok {
				return "", fmt.Errorf("%s and %s both declare %s at top level: they share one scope once linked; rename one", other, m.name, d)
			}
			declaredIn[d] = m.name
		}
	}
	var b strings.Builder
	for _, m := range order {
		for dep, names := range m.imports {
			for _, n := range names {
				if !byName[dep].exports[n] {
					return "", fmt.Errorf("%s imports %s from %s, which does not export it", m.name, n, dep)
				}
			}
		}
		s := protocolImport.ReplaceAllString(namedImport.ReplaceAllString(m.text, ""), "")
		if m.name != entry {
			s = strings.ReplaceAll(s, "\nexport ", "\n")
			if strings.HasPrefix(s, "export ") {
				s = s[len("export "):]
			}
			if bad := anyExport.FindString(s); bad != "" {
				return "", fmt.Errorf("%s: an export the linker does not know: %q", m.name, bad)
			}
		}
		s, err := withProtocol(s)
		if err != nil {
			return "", fmt.Errorf("jsglue/%s: %v", m.name, err)
		}
		b.WriteString("\n// ---- jsglue/" + m.name + "\n" + s)
	}
	return b.String(), nil
}

// withProtocol writes each P.NAME as its value in protocol.js: a literal, so
// the glue's fast paths compare with constants and Go stays the one
// definition of the values.
func withProtocol(s string) (string, error) {
	values := protocolValues()
	var unknown []string
	s = protocolName.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := values[m[len("P."):]]
		if !ok {
			unknown = append(unknown, m)
			return m
		}
		return v + " /* " + m + " */"
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("uses %s, which internal/core does not publish (internal/core/publish.go)", strings.Join(unknown, ", "))
	}
	return s, nil
}

// protocolValues is every constant of protocol.js, as JavaScript literals.
func protocolValues() map[string]string {
	m := map[string]string{"TEXT": strconv.Quote(string(core.ProtocolText()))}
	for k, v := range core.Protocol() {
		m[k] = strconv.Itoa(v.(int))
	}
	// The debug area's layout: the glue's alone to read and write (the
	// module never touches it), so not in the module's published TEXT.
	for k, v := range core.DebugLayout() {
		m[k] = strconv.Itoa(int(v))
	}
	// Likewise the offsets of what each primitive keeps beside its word.
	for k, v := range core.SlotLayout() {
		m[k] = strconv.Itoa(int(v))
	}
	// And where the name table keeps the names, which the hosts read alone.
	for k, v := range core.NamesLayout() {
		m[k] = strconv.Itoa(int(v))
	}
	// Every constant by name as text too (NAMED, beside TEXT, which holds
	// the module's values alone), for the tests that read them by name at
	// run time (api.js's internals).
	var named []string
	for k, v := range m {
		if k != "TEXT" {
			named = append(named, k+"="+v+"\n")
		}
	}
	sort.Strings(named)
	m["NAMED"] = strconv.Quote(strings.Join(named, ""))
	return m
}

// constantNames is the names of values, sorted, but for TEXT (all of them
// as one text).
func constantNames(values map[string]string) []string {
	names := make([]string, 0, len(values))
	for k := range values {
		if k != "TEXT" && k != "NAMED" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// protocolModule is jsglue/protocol.js.
func protocolModule() string {
	values := protocolValues()
	names := constantNames(values)
	var b strings.Builder
	b.WriteString("// The protocol's constants, as internal/core publishes them (internal/core/publish.go).\n" +
		"// Generated by cmd/jsbundle/bundle.go (make dist); do not edit. The sources import\n" +
		"// it as P, and the bundle writes each P.NAME as its value.\n\n")
	for _, k := range names {
		fmt.Fprintf(&b, "export const %s = %s;\n", k, values[k])
	}
	b.WriteString("\n// Their values as text, as the module publishes them: init compares the two.\n")
	fmt.Fprintf(&b, "export const TEXT = %s;\n", values["TEXT"])
	b.WriteString("\n// Every constant by name, as text, for the tests that read them by name\n// (api.js's internals).\n")
	fmt.Fprintf(&b, "export const NAMED = %s;\n", values["NAMED"])
	return b.String()
}

// protoGoPath is where the protocol's constants are written for Go hosts
// (sabsync, the core tests): Go identifiers, so that a misspelt op or kind
// fails to compile rather than at run time in one host only.
const protoGoPath = "../internal/proto/proto.go"

// protoGo is internal/proto/proto.go: each NAME that internal/core publishes as the
// constant Name (OP_TRY_LOCK: OpTryLock), with its value.
func protoGo() string {
	values := protocolValues()
	names := constantNames(values)
	var b strings.Builder
	b.WriteString("// Package proto is the protocol's constants, as internal/core publishes them\n" +
		"// (internal/core/publish.go), for Go hosts: sabsync and the core tests.\n" +
		"// Generated by cmd/jsbundle/bundle.go (make dist), as jsglue/protocol.js is; do\n" +
		"// not edit.\n" +
		"package proto\n\n" +
		"const (\n")
	for _, k := range names {
		fmt.Fprintf(&b, "\t%s = %s\n", goName(k), values[k])
	}
	b.WriteString(")\n")
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		panic("proto.go: " + err.Error())
	}
	return string(out)
}

// goName is a published NAME as a Go identifier: RESULT_OK is ResultOK,
// OP_TRY_LOCK OpTryLock, STARVATION_THRESHOLD_US StarvationThresholdUS.
func goName(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		switch part {
		case "OK", "ID", "US", "MS":
			b.WriteString(part)
		default:
			b.WriteString(part[:1] + strings.ToLower(part[1:]))
		}
	}
	return b.String()
}

// messagesGoPath holds the error texts that the glue and sabsync share.
const messagesGoPath = "../internal/proto/messages.go"

// messagesModule is jsglue/messages.js: each Msg constant of
// internal/proto/messages.go, as a constant of the same name.
func messagesModule(goSource string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), messagesGoPath, goSource, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("// The error texts that the glue and sabsync share, as internal/proto/messages.go\n" +
		"// writes them. Generated by cmd/jsbundle/bundle.go (make dist); do not edit. Fill\n" +
		"// them in with errors.js's fill.\n\n")
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || !strings.HasPrefix(name.Name, "Msg") {
					return "", fmt.Errorf("%s: %s: each constant is a Msg... of one string literal", messagesGoPath, name.Name)
				}
				text, err := strconv.Unquote(lit.Value)
				if err != nil {
					return "", err
				}
				fmt.Fprintf(&b, "export const %s = %s;\n", name.Name, strconv.Quote(text))
			}
		}
	}
	return b.String(), nil
}
