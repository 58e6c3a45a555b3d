package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Page is one page opened in a Browser's tab by Open. Its methods may be
// called from any goroutine.
type Page struct {
	b         *Browser
	s         *session
	token     string
	url       string
	connected chan struct{} // closed by the page's first hello
	closeAck  chan struct{} // closed when the page acknowledges Close

	// Guarded by the Driver's mu:
	doc       string          // the current document's id ("" between documents)
	oldDocs   map[string]bool // documents the page has replaced
	href      string          // location.href of the current document
	queue     []evalCmd       // evaluations not yet sent to the page
	evals     map[int64]*pendingEval
	nextID    int64
	closing   bool
	done      bool
	problems  []string
	onProblem func(string)
}

type pendingEval struct {
	ch  chan evalResult // buffered: one result
	doc string          // the document it was sent to, "" while queued
}

type evalResult struct {
	value json.RawMessage
	err   error
}

// EvalError is an exception thrown (or a rejection) by an evaluated
// expression: Message is "Name: message" of an Error, then its stack where
// the engine gives one, or the thrown value as text.
type EvalError struct{ Message string }

func (e *EvalError) Error() string { return "javascript: " + e.Message }

var (
	errStopped = errors.New("browsers: the browser was stopped")
	errClosed  = errors.New("browsers: the page was closed")
)

// ErrStuck is Open's error when the tab never asked for the navigation:
// it is still on the previous page, out of reach (see Open).
var ErrStuck = errors.New("the tab did not ask for the navigation; is the previous page stuck?")

// ErrNoCloseAck is Close's error when the page did not acknowledge it in
// time: it may have lost reports it had still to send (it is closed all
// the same).
var ErrNoCloseAck = errors.New("the page did not acknowledge Close; is it stuck?")

// ErrCrashed is the error of Open, Eval and Close once the engine has said
// that the process running its tab's pages crashed (WebKitGTK's
// MiniBrowser prints "WebProcess CRASHED"): the engine goes on, but its tab
// runs nothing more, so each fails at once instead of at its deadline.
// Stop the Browser and start another.
var ErrCrashed = errors.New("the process that runs the tab's pages crashed")

// ErrNoDriver is Open's error when the tab went to url but driver.js on the
// page never connected: the page's HTML is not served through Inject, or
// the tab stuck while loading it (WebKitGTK's MiniBrowser, now and then).
var ErrNoDriver = errors.New("the tab went there but driver.js on the page did not connect")

// Open navigates the tab to url and returns once driver.js on that page has
// connected, which it does on the window's load event (so the page's own
// scripts have run). A page still open in the tab is closed first. Open fails
// when ctx ends (OpenTimeout if ctx has no deadline), e.g. because the page
// does not get driver.js (is it served through Inject?), or when the engine
// exits. After a page failed to connect, the tab may be stuck on it, out of
// reach of later Opens: Stop the Browser and start another. Call Open from
// one goroutine at a time.
func (b *Browser) Open(ctx context.Context, url string) (*Page, error) {
	ctx, cancel := withDefault(ctx, OpenTimeout)
	defer cancel()
	d, s := b.d, b.s
	d.mu.Lock()
	prev := s.cur
	d.mu.Unlock()
	if prev != nil {
		prev.Close()
	}
	p := &Page{b: b, s: s, token: randomID(), url: url, connected: make(chan struct{}), closeAck: make(chan struct{}),
		oldDocs: map[string]bool{}, evals: map[int64]*pendingEval{}}
	d.mu.Lock()
	if s.dead {
		d.mu.Unlock()
		return nil, errStopped
	}
	s.pages[p.token] = p
	s.cur = p
	s.nav = &navigation{URL: url, Token: p.token}
	s.notify()
	d.mu.Unlock()
	var err error
	select {
	case <-p.connected:
		return p, nil
	case <-b.exited:
		err = b.errExited()
	case <-b.Crashed():
		err = b.errCrashed()
	case <-ctx.Done():
		d.mu.Lock()
		sent := s.nav != nil && s.nav.sent
		dead := s.dead
		d.mu.Unlock()
		switch {
		case dead:
			err = errStopped
		case sent:
			err = fmt.Errorf("browsers: %s: opening %s: %w (%v); is the page HTML served through Inject?", b.name, url, ErrNoDriver, ctx.Err())
		default:
			err = fmt.Errorf("browsers: %s: opening %s: %w (%v)", b.name, url, ErrStuck, ctx.Err())
		}
	}
	d.mu.Lock()
	p.finish(err)
	if s.nav != nil && s.nav.Token == p.token {
		s.nav = nil
	}
	s.notify()
	d.mu.Unlock()
	return nil, err
}

// URL returns the URL the page was opened at.
func (p *Page) URL() string { return p.url }

// Eval evaluates the JavaScript expression expr on the page, as a global
// script (indirect eval), awaits its value if it is a promise, and returns
// the value as JSON (undefined as null). If the expression throws or
// rejects, the error is an *EvalError with its message. Eval fails when ctx
// ends (EvalTimeout if ctx has no deadline), when the page is closed or
// navigates away before the expression settles, or when the engine exits.
// Problems the page reported before it answered are in Problems by the time
// Eval returns.
func (p *Page) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	ctx, cancel := withDefault(ctx, EvalTimeout)
	defer cancel()
	d := p.b.d
	d.mu.Lock()
	if p.done {
		d.mu.Unlock()
		return nil, errClosed
	}
	p.nextID++
	id := p.nextID
	pe := &pendingEval{ch: make(chan evalResult, 1)}
	p.evals[id] = pe
	p.queue = append(p.queue, evalCmd{ID: id, Expr: expr})
	p.s.notify()
	d.mu.Unlock()
	select {
	case r := <-pe.ch:
		return r.value, r.err
	case <-p.b.exited:
		return nil, p.b.errExited()
	case <-p.b.Crashed():
		return nil, p.b.errCrashed()
	case <-ctx.Done():
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	select {
	case r := <-pe.ch: // it answered just now
		return r.value, r.err
	default:
	}
	delete(p.evals, id)
	for i, e := range p.queue {
		if e.ID == id {
			p.queue = append(p.queue[:i:i], p.queue[i+1:]...)
			return nil, fmt.Errorf("browsers: %s: the page did not take the expression (is it stuck?): %w", p.b.name, ctx.Err())
		}
	}
	return nil, fmt.Errorf("browsers: %s: the expression did not settle: %w", p.b.name, ctx.Err())
}

// Eval evaluates expr on p like p.Eval and decodes its value into a T.
func Eval[T any](ctx context.Context, p *Page, expr string) (T, error) {
	var v T
	raw, err := p.Eval(ctx, expr)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("browsers: decoding %s into %T: %w", raw, v, err)
	}
	return v, nil
}

// OnProblem calls f, on the goroutine of the HTTP request that reported it,
// with each problem the page reports from now on: "console.error: ...",
// "uncaught: ..." (an uncaught exception), "unhandledrejection: ..." or
// "load: ..." (a script, stylesheet or image that failed to load).
func (p *Page) OnProblem(f func(msg string)) {
	p.b.d.mu.Lock()
	p.onProblem = f
	p.b.d.mu.Unlock()
}

// Problems returns the problems the page has reported so far (see
// OnProblem), and forgets them.
func (p *Page) Problems() []string {
	p.b.d.mu.Lock()
	defer p.b.d.mu.Unlock()
	out := p.problems
	p.problems = nil
	return out
}

// Close ends the page: driver.js sends what it has still to report, the tab
// goes back to the runner page, and pending evaluations fail. It waits 5 s
// at most for the page to acknowledge; the error says if it did not (the
// page is closed all the same). Close may be called more than once.
func (p *Page) Close() error {
	d, s := p.b.d, p.s
	d.mu.Lock()
	if p.done {
		d.mu.Unlock()
		return nil
	}
	p.closing = true
	live := p.doc != ""
	s.notify()
	d.mu.Unlock()
	var err error
	if live {
		select {
		case <-p.closeAck:
		case <-p.b.exited:
			err = p.b.errExited()
		case <-p.b.Crashed():
			err = p.b.errCrashed()
		case <-time.After(closeTimeout):
			err = fmt.Errorf("browsers: %s: %s: %w (%v)", p.b.name, p.url, ErrNoCloseAck, closeTimeout)
		}
	}
	d.mu.Lock()
	p.finish(errClosed)
	s.notify()
	d.mu.Unlock()
	return err
}

// finish marks p done and fails its pending evaluations with err. d.mu must
// be held.
func (p *Page) finish(err error) {
	p.done = true
	if p.s.cur == p {
		p.s.cur = nil
	}
	for id, pe := range p.evals {
		pe.ch <- evalResult{err: err}
		delete(p.evals, id)
	}
	p.queue = nil
}

// docGone fails the evaluations sent to document doc, which has gone.
// d.mu must be held.
func (p *Page) docGone(doc string) {
	p.oldDocs[doc] = true
	for id, pe := range p.evals {
		if pe.doc == doc {
			pe.ch <- evalResult{err: fmt.Errorf("browsers: %s: the page navigated away before the expression settled", p.b.name)}
			delete(p.evals, id)
		}
	}
}
