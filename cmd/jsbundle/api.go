package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The public API is listed once: the names of the object that
// jsglue/api.js's apiObject returns (the classic script's global, the ES
// module's default export). The default export's type in sabmutex.d.mts is
// written from that list (defaultExportType); the lists that must name the
// same things in their own syntax (module.js's named exports, classic.js's
// CommonJS exports, sabmutex.d.ts's declarations) are checked against it
// by TestAPIListedOnce.

var (
	apiKey    = regexp.MustCompile(`^(?:get )?([A-Za-z_$][\w$]*)(?:\(\)|:|,)`)
	apiValues = map[string]string{ // names whose type is not `typeof name`
		"module":  "/** The compiled module once `init` has resolved, else null. */\n  readonly module: WebAssembly.Module | null;",
		"agentId": "/** This agent's id once `init` has resolved (0 before). */\n  readonly agentId: number;",
	}
)

// apiNames is the names of apiObject's object, in order.
func apiNames(apiJS string) ([]string, error) {
	start := strings.Index(apiJS, "export function apiObject(")
	if start < 0 {
		return nil, fmt.Errorf("api.js has no apiObject")
	}
	body := apiJS[start:]
	const opener = "  const api = {\n"
	open := strings.Index(body, opener)
	end := strings.Index(body, "\n  };\n")
	if open < 0 || end < open {
		return nil, fmt.Errorf("api.js: apiObject must make `const api = {` an object literal, closed by `  };`")
	}
	var names []string
	for _, line := range strings.Split(body[open+len(opener):end], "\n") {
		if !strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "     ") {
			continue // not a key at the object's own depth
		}
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "//") || line == "}," || line == "}" {
			continue // a comment, or the end of a getter
		}
		m := apiKey.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("api.js: apiObject: cannot read the key of %q", line)
		}
		names = append(names, m[1])
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("api.js: apiObject lists no names")
	}
	return names, nil
}

// defaultExportType is sabmutex.d.mts's type of the default export: one
// readonly member per name of the API.
func defaultExportType(names []string) string {
	var b strings.Builder
	b.WriteString("\n/** The same API as one object, for `import sabmutex from \"sabmutex\"`. */\ndeclare const sabmutex: {\n")
	for _, n := range names {
		if v, ok := apiValues[n]; ok {
			b.WriteString("  " + v + "\n")
		} else {
			fmt.Fprintf(&b, "  readonly %s: typeof %s;\n", n, n)
		}
	}
	b.WriteString("};\nexport default sabmutex;\n")
	return b.String()
}
