// Package browsers runs the browser tests in Chromium, Firefox and WebKitGTK
// without WebDriver or DevTools: it launches an engine at a runner page, and
// a small script (driver.js), inserted into every HTML page the test servers
// send, long-polls the Go side over plain HTTP for expressions to evaluate and
// reports the page's console errors, uncaught exceptions and unhandled
// rejections.
//
// Typical use:
//
//	d := browsers.NewDriver()
//	srv := httptest.NewServer(d.Wrap(files)) // driver at Prefix, driver.js injected into HTML
//	b, err := browsers.Start(ctx, "firefox", d, srv.URL, browsers.Options{})
//	defer b.Stop()
//	p, err := b.Open(ctx, srv.URL+"/index.html")
//	v, err := browsers.Eval[int](ctx, p, "1 + 1")
//	p.Close()
//
// One Driver may be mounted on several servers (the isolated and the plain
// one): they share its state. Each Browser has one tab, in which pages are
// opened one after another. Every wait is bounded by its context, or by a
// default deadline when the context has none.
//
// How it works: the tab starts at Prefix+"runner", which long-polls the
// Driver. Open queues the URL; the document in the tab (the runner, or the
// page closed before) sets a cookie naming the Browser and the new page
// (cookies ignore ports, so it reaches both test servers of one host) and
// navigates. The request for driver.js carries the cookie, and the Driver
// bakes the names (and Options) into the script. On the load event
// driver.js says hello, which ends Open, then long-polls for expressions
// (one poll per page at a time; an empty answer every PollWait keeps it
// alive). Close makes the page flush its reports, acknowledge, and end the
// workers it started; the closed page waits in the tab for the next Open
// to navigate from it, and goes back to the runner only after Linger (a
// hop through the runner doubled the navigations a page cost). Problems a
// page reports before an evaluation's answer reach Go before that answer.
// When the engine exits, or says that the process running its tab's pages
// crashed (WebKitGTK's "WebProcess CRASHED"), pending and later calls fail
// at once (ErrCrashed), not at their deadlines.
//
// What driver.js cannot see, unlike a DevTools client: messages the engine
// itself logs (a failed fetch's 404, COEP blocks), console.error of workers
// (pages forward those themselves), and anything on a page that never
// loaded driver.js.
package browsers
