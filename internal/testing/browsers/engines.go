package browsers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Engines are the engines this package can run, in the order the tests use.
var Engines = []string{"chromium", "firefox", "webkit"}

// engine says how to find and describe one engine's binary.
type engine struct {
	envVar  string   // overrides the binary's path
	pkg     string   // the Debian package that provides it
	names   []string // looked up on the PATH
	globs   []string // tried when no name is on the PATH
	display bool     // needs an X display (Xvfb)
	// crashLine is what the engine prints when the process that runs its
	// tab's pages crashes while the engine itself goes on ("" where we know
	// of none): the tab then runs nothing (see ErrCrashed).
	crashLine string
}

var engines = map[string]engine{
	"chromium": {envVar: "CHROMIUM", pkg: "chromium", names: []string{"chromium", "chromium-browser", "google-chrome"}},
	"firefox":  {envVar: "FIREFOX", pkg: "firefox-esr", names: []string{"firefox-esr", "firefox"}},
	"webkit": {envVar: "WEBKIT", pkg: "libwebkit2gtk-4.1-0", display: true, crashLine: "WebProcess CRASHED", globs: []string{
		"/usr/lib/*/webkit2gtk-4.1/MiniBrowser",
		"/usr/lib/*/webkit2gtk-4.0/MiniBrowser",
		"/usr/libexec/webkit2gtk-4.*/MiniBrowser",
	}},
}

func lookup(name string) (engine, error) {
	e, ok := engines[name]
	if !ok {
		return e, fmt.Errorf("browsers: unknown engine %q (known: %s)", name, strings.Join(Engines, ", "))
	}
	return e, nil
}

// Find returns the path of the engine's binary: $CHROMIUM, $FIREFOX or
// $WEBKIT if set, else the usual names on the PATH (for webkit, WebKitGTK's
// MiniBrowser in its library directory). The error names the Debian package
// to install.
func Find(name string) (string, error) {
	e, err := lookup(name)
	if err != nil {
		return "", err
	}
	if p := os.Getenv(e.envVar); p != "" {
		return p, nil
	}
	for _, n := range e.names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	for _, g := range e.globs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return m[0], nil
		}
	}
	return "", fmt.Errorf("browsers: no %s found: install it (Debian: apt-get install %s, or `make browsers`) or set %s to its path", name, e.pkg, e.envVar)
}

// Selected returns the engines named in $BROWSERS (comma-separated, e.g.
// "chromium,firefox"), or all Engines when it is unset.
func Selected() ([]string, error) {
	v := strings.TrimSpace(os.Getenv("BROWSERS"))
	if v == "" {
		return Engines, nil
	}
	var out []string
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, err := lookup(n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// Version returns a one-line description of the engine's version, e.g.
// "Chromium 156.0.8078.79" or "WebKitGTK 2.50.6-1~deb12u2". It runs the
// binary with --version (10 s at most); for WebKitGTK, whose MiniBrowser needs
// a display for that, it asks dpkg for the library's version instead.
func Version(name string) (string, error) {
	path, err := Find(name)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	if name == "webkit" {
		cmd = exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "WebKitGTK ${Version}", engines[name].pkg)
	} else {
		cmd = exec.CommandContext(ctx, path, "--version")
		cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("browsers: version of %s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
