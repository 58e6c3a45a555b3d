package browsers

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Prefix is the path under which a Driver serves its runner page, driver.js
// and the endpoints driver.js talks to.
const Prefix = "/__driver/"

// PollWait is how long a long-poll waits before answering "nothing yet", so
// that no browser or proxy times it out.
const PollWait = 20 * time.Second

// Linger is how long a closed page stays in the tab, its workers ended, for
// the next Open to navigate from it; then it goes back to the runner page.
// Going from page to page, not page to runner to page, halves the
// navigations: a page cost each engine about 130 CPU-ms less
// (docs/decisions/suite-time.md).
const Linger = 5 * time.Second

// lingerPoll is how long a lingering page's long-poll waits for the next
// Open before it is answered with nothing, and renewed.
const lingerPoll = 100 * time.Millisecond

// cookieName carries "session.page" from the runner page, which sets it just
// before navigating, to the request for driver.js on the page it opens, so
// that the script knows which Browser and Page it belongs to. Cookies ignore
// ports, so this works across the test servers of one host.
const cookieName = "__sabdrv"

//go:embed driver.js
var driverJS string

//go:embed runner.html
var runnerHTML string

// Driver serves the runner page and driver.js, and relays evaluations and
// problem reports between pages and Go. Mount it at Prefix on every server
// whose pages are opened (Wrap does that and injects driver.js); all mounts
// share its state. The zero Driver is not usable: call NewDriver.
type Driver struct {
	mu       sync.Mutex
	sessions map[string]*session
	pollWait time.Duration // PollWait; tests shorten it
	linger   time.Duration // Linger; tests shorten it
}

// NewDriver returns a Driver with no browsers.
func NewDriver() *Driver {
	return &Driver{sessions: map[string]*session{}, pollWait: PollWait, linger: Linger}
}

// Wrap returns a handler that serves d at Prefix and everything else from h,
// with driver.js injected into its HTML (see Inject).
func (d *Driver) Wrap(h http.Handler) http.Handler { return d.wrap(h, false) }

// WrapIsolated is Wrap for an h whose pages are cross-origin isolated
// (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy:
// require-corp): the runner page it serves is too. Between pages of unlike
// isolation an engine swaps the tab's renderer process, and a tab goes from
// the runner to each page and back: a page then cost the engine more than
// twice the CPU before its first script ran that it costs with the runner
// isolated like it (Chromium, Firefox and WebKit alike; the figures in
// docs/decisions/suite-time.md).
func (d *Driver) WrapIsolated(h http.Handler) http.Handler { return d.wrap(h, true) }

func (d *Driver) wrap(h http.Handler, isolated bool) http.Handler {
	inj := Inject(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, Prefix) {
			if isolated {
				w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
				w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
			}
			d.ServeHTTP(w, r)
			return
		}
		inj.ServeHTTP(w, r)
	})
}

// session is the state of one Browser's tab. Its fields are guarded by d.mu.
type session struct {
	d        *Driver
	b        *Browser
	id       string
	opts     Options
	home     string        // the runner page's absolute URL, on the origin Start was given
	changed  chan struct{} // closed and replaced on every change
	runnerUp chan struct{} // closed when the runner page first says hello
	ua       string
	pages    map[string]*Page // by token
	cur      *Page            // the page being opened or open, if any
	nav      *navigation      // a navigation not yet confirmed by the page's hello
	// lingerUntil is how long the document of a page that acknowledged
	// its Close waits for the next Open to navigate it (Linger after the
	// acknowledgement); after it, the document goes back to the runner.
	lingerUntil time.Time
	dead        bool
}

type navigation struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	sent  bool
}

func (s *session) runnerPath() string { return Prefix + "runner?s=" + s.id }

// notify wakes every long-poll of s. d.mu must be held.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (d *Driver) newSession(b *Browser, opts Options) *session {
	s := &session{d: d, b: b, id: randomID(), opts: opts, changed: make(chan struct{}),
		runnerUp: make(chan struct{}), pages: map[string]*Page{}}
	d.mu.Lock()
	d.sessions[s.id] = s
	d.mu.Unlock()
	return s
}

// endSession fails the pages of s and releases its long-polls.
func (d *Driver) endSession(s *session) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s.dead = true
	for _, p := range s.pages {
		p.finish(errStopped)
	}
	delete(d.sessions, s.id)
	s.notify()
}

// command is what a long-poll answers; the zero command means "nothing yet".
type command struct {
	Navigate *navigation `json:"navigate,omitempty"` // set the cookie, go there
	Home     string      `json:"home,omitempty"`     // go back to the runner page
	Evals    []evalCmd   `json:"evals,omitempty"`    // evaluate these
	Close    bool        `json:"close,omitempty"`    // flush reports, ack, end the page's workers, wait
	Stop     bool        `json:"stop,omitempty"`     // stop polling: this document is stale
}

type evalCmd struct {
	ID   int64  `json:"id"`
	Expr string `json:"expr"`
}

// ServeHTTP serves Prefix: runner (the start page), driver.js, and the POST
// endpoints hello, poll, problem, result, closed and bye that driver.js and
// the runner use, each with query parameters s (session), p (page token,
// empty on the runner) and d (document id).
func (d *Driver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	name := strings.TrimPrefix(r.URL.Path, Prefix)
	q := r.URL.Query()
	switch name {
	case "runner":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, runnerHTML)
		return
	case "driver.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		io.WriteString(w, strings.Replace(driverJS, "__CONFIG__", d.configFor(r), 1))
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return
	}
	d.mu.Lock()
	s := d.sessions[q.Get("s")]
	d.mu.Unlock()
	if s == nil {
		writeJSON(w, command{Stop: true})
		return
	}
	token, doc := q.Get("p"), q.Get("d")
	switch name {
	case "poll":
		d.poll(w, r, s, token, doc)
	case "hello":
		d.hello(s, token, doc, body)
		writeJSON(w, command{})
	case "problem":
		d.problem(s, token, body)
		writeJSON(w, command{})
	case "result":
		d.result(s, token, body)
		writeJSON(w, command{})
	case "closed":
		d.closed(s, token, doc)
		writeJSON(w, command{})
	case "bye":
		d.bye(s, token, doc)
		writeJSON(w, command{})
	default:
		http.NotFound(w, r)
	}
}

// configFor returns the JSON configuration baked into driver.js for the
// page that asks for it: its session and page token from the cookie the
// runner set. Without the cookie (a page on another host), the page is taken
// to be the one being opened if exactly one browser is opening one.
func (d *Driver) configFor(r *http.Request) string {
	type config struct {
		Session     string `json:"session"`
		Page        string `json:"page"`
		Home        string `json:"home"`
		Prefix      string `json:"prefix"`
		NoWaitAsync bool   `json:"noWaitAsync"`
	}
	c := config{Prefix: Prefix}
	d.mu.Lock()
	defer d.mu.Unlock()
	var s *session
	if ck, err := r.Cookie(cookieName); err == nil {
		sid, tok, _ := strings.Cut(ck.Value, ".")
		if s = d.sessions[sid]; s != nil {
			c.Page = tok
		}
	}
	if s == nil {
		for _, x := range d.sessions {
			if x.nav != nil {
				if s != nil {
					s = nil // ambiguous
					break
				}
				s, c.Page = x, x.nav.Token
			}
		}
	}
	if s != nil {
		c.Session, c.Home, c.NoWaitAsync = s.id, s.home, s.opts.NoWaitAsync
	}
	j, _ := json.Marshal(c)
	return string(j)
}

// poll answers a document's long-poll with its next command, or with the
// zero command after PollWait.
func (d *Driver) poll(w http.ResponseWriter, r *http.Request, s *session, token, doc string) {
	d.mu.Lock()
	wait := d.pollWait
	if p := s.pages[token]; token != "" && (p == nil || p.done) && time.Now().Before(s.lingerUntil) {
		// A closed page's document, lingering: answered often, so that a
		// test server closed under it (httptest waits for its requests)
		// waits no longer than lingerPoll, and the page, its poll then
		// failing, goes home (driver.js).
		wait = lingerPoll
	}
	d.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		d.mu.Lock()
		var c *command
		if r.Context().Err() == nil {
			c = s.next(token, doc)
		}
		changed := s.changed
		d.mu.Unlock()
		if c != nil {
			writeJSON(w, *c)
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			writeJSON(w, command{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

// next returns the command for document doc of page token (the runner if
// token is empty), or nil to wait. d.mu must be held.
func (s *session) next(token, doc string) *command {
	if s.dead {
		return &command{Stop: true}
	}
	if token == "" { // the runner page
		if s.nav != nil {
			s.nav.sent = true
			return &command{Navigate: s.nav}
		}
		return nil
	}
	p := s.pages[token]
	if p != nil && p == s.cur && !p.done {
		switch {
		case p.oldDocs[doc]:
			return &command{Stop: true}
		case p.doc != doc: // its hello is on the way
			return nil
		case p.closing:
			return &command{Close: true}
		case len(p.queue) > 0:
			c := &command{Evals: p.queue}
			for _, e := range p.queue {
				if pe := p.evals[e.ID]; pe != nil {
					pe.doc = doc
				}
			}
			p.queue = nil
			return c
		}
		return nil
	}
	// A document of a closed or unknown page: it is the tab's current
	// document, so send it where the tab should be: to the page being
	// opened; or, once a closed page has lingered for Linger, to the runner.
	if s.nav != nil {
		s.nav.sent = true
		return &command{Navigate: s.nav}
	}
	if time.Now().Before(s.lingerUntil) {
		return nil
	}
	return &command{Home: s.home}
}

// hello records that a document has loaded: the runner (token empty), which
// sends navigator.userAgent, or a page, which then becomes that page's
// document (replacing an earlier one if the page navigated itself).
func (d *Driver) hello(s *session, token, doc string, body []byte) {
	var h struct {
		UA   string `json:"ua"`
		Href string `json:"href"`
	}
	json.Unmarshal(body, &h)
	d.mu.Lock()
	defer d.mu.Unlock()
	if token == "" {
		s.ua = h.UA
		select {
		case <-s.runnerUp:
		default:
			close(s.runnerUp)
		}
		return
	}
	p := s.pages[token]
	if p == nil || p.done || p != s.cur {
		return
	}
	if p.doc != doc {
		if p.doc != "" {
			p.docGone(p.doc)
		}
		p.doc = doc
		p.href = h.Href
	}
	if s.nav != nil && s.nav.Token == token {
		s.nav = nil
	}
	select {
	case <-p.connected:
	default:
		close(p.connected)
	}
	s.notify()
}

// bye records that a page's document is unloading: evaluations it was given
// fail, later ones wait for its successor's hello.
func (d *Driver) bye(s *session, token, doc string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p := s.pages[token]; p != nil && !p.done && p.doc == doc && !p.closing {
		p.docGone(doc)
		p.doc = ""
		s.notify()
	}
}

// problem records a console error, uncaught exception or unhandled
// rejection of a page.
func (d *Driver) problem(s *session, token string, body []byte) {
	var m struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	json.Unmarshal(body, &m)
	msg := m.Kind + ": " + m.Text
	d.mu.Lock()
	p := s.pages[token]
	if p == nil || p.done {
		d.mu.Unlock()
		return
	}
	p.problems = append(p.problems, msg)
	f := p.onProblem
	d.mu.Unlock()
	if f != nil {
		f(msg)
	}
}

// result delivers the outcome of an evaluation to Eval.
func (d *Driver) result(s *session, token string, body []byte) {
	var m struct {
		ID  int64           `json:"id"`
		OK  json.RawMessage `json:"ok"`
		Err *string         `json:"err"`
	}
	if json.Unmarshal(body, &m) != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	p := s.pages[token]
	if p == nil {
		return
	}
	pe := p.evals[m.ID]
	if pe == nil {
		return
	}
	delete(p.evals, m.ID)
	if m.Err != nil {
		pe.ch <- evalResult{err: &EvalError{Message: *m.Err}}
	} else {
		if len(m.OK) == 0 {
			m.OK = json.RawMessage("null")
		}
		pe.ch <- evalResult{value: m.OK}
	}
}

// closed records that a page acknowledged Close: its reports are all in.
func (d *Driver) closed(s *session, token, doc string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p := s.pages[token]; p != nil && p.doc == doc {
		select {
		case <-p.closeAck:
		default:
			close(p.closeAck)
			s.lingerUntil = time.Now().Add(d.linger)
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}
