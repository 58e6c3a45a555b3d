// Package chrome starts the headless Chromium that the browser tests and the
// benchmarks drive with chromedp.
package chrome

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// Find returns the Chromium to use: $CHROMIUM, else the first of the usual
// names on the PATH.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: install it (Debian: apt-get install chromium) or set CHROMIUM to its path")
}

// Start launches Chromium and returns a chromedp context for it and the
// browser's user agent. Cancel the context to stop the browser.
func Start(parent context.Context) (context.Context, context.CancelFunc, string, error) {
	path, err := Find()
	if err != nil {
		return nil, nil, "", err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.DisableGPU,
		// The machine may have no internet: keep Chromium from trying.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to sandbox as root
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	cancel := func() { cancelCtx(); cancelAlloc() }
	ua, err := chromedp.Run(ctx, chromedp.Evaluate[string]("navigator.userAgent"))
	if err != nil {
		cancel()
		return nil, nil, "", fmt.Errorf("starting %s: %w", path, err)
	}
	return ctx, cancel, ua, nil
}

// OnProblem calls f, from a goroutine of its own, with every console error
// and uncaught exception of the tab of ctx (a chromedp context), until ctx ends.
func OnProblem(ctx context.Context, f func(msg string)) {
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				f(m.String())
			}
		}
	}()
}
