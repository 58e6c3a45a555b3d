package browsers

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// scriptTag loads driver.js synchronously, before the page's own scripts.
const scriptTag = `<script src="` + Prefix + `driver.js"></script>`

// Inject returns a handler that serves h, with scriptTag inserted as the
// first thing in the <head> of every successful (200) text/html response to
// a GET: right after <head>, or, where the page leaves the tag out, after
// <html> or the doctype. It buffers such responses whole, and drops
// conditional and range headers from GET requests so that h answers them in
// full.
func Inject(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		r = r.Clone(r.Context())
		for _, k := range []string{"Range", "If-Range", "If-Modified-Since", "If-None-Match"} {
			r.Header.Del(k)
		}
		iw := &injector{w: w}
		h.ServeHTTP(iw, r)
		iw.finish()
	})
}

// injector buffers a text/html response and passes any other through.
type injector struct {
	w       http.ResponseWriter
	decided bool
	buffer  bool // an HTML response, buffered until finish
	code    int
	body    bytes.Buffer
}

func (iw *injector) Header() http.Header { return iw.w.Header() }

// Unwrap lets http.ResponseController reach the real ResponseWriter.
func (iw *injector) Unwrap() http.ResponseWriter { return iw.w }

func (iw *injector) WriteHeader(code int) {
	if iw.decided {
		return
	}
	iw.decide(code, nil)
}

func (iw *injector) Write(b []byte) (int, error) {
	if !iw.decided {
		iw.decide(http.StatusOK, b)
	}
	if iw.buffer {
		return iw.body.Write(b)
	}
	return iw.w.Write(b)
}

// decide chooses to buffer or pass through, on the status and content type
// (sniffed from first, the first bytes written, if h set none).
func (iw *injector) decide(code int, first []byte) {
	iw.decided, iw.code = true, code
	hd := iw.w.Header()
	ct := hd.Get("Content-Type")
	if ct == "" && first != nil {
		ct = http.DetectContentType(first)
		hd.Set("Content-Type", ct)
	}
	iw.buffer = code == http.StatusOK && strings.HasPrefix(strings.ToLower(ct), "text/html") && hd.Get("Content-Encoding") == ""
	if !iw.buffer {
		iw.w.WriteHeader(code)
	}
}

func (iw *injector) finish() {
	if !iw.decided {
		iw.decide(http.StatusOK, []byte{})
	}
	if !iw.buffer {
		return
	}
	out := insertScript(iw.body.Bytes())
	iw.w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	iw.w.WriteHeader(iw.code)
	iw.w.Write(out)
}

// insertScript returns page with scriptTag after its <head> start tag, or
// after <html>, or after the doctype, or at the start.
func insertScript(page []byte) []byte {
	lower := bytes.ToLower(page)
	at := 0
	for _, tag := range []string{"<head", "<html", "<!doctype"} {
		if i := startTag(lower, tag); i >= 0 {
			if j := bytes.IndexByte(lower[i:], '>'); j >= 0 {
				at = i + j + 1
				break
			}
		}
	}
	out := make([]byte, 0, len(page)+len(scriptTag))
	out = append(out, page[:at]...)
	out = append(out, scriptTag...)
	return append(out, page[at:]...)
}

// startTag returns the index of the start tag tag ("<head") in lower, not
// matching longer names ("<header"), or -1.
func startTag(lower []byte, tag string) int {
	for off := 0; ; {
		i := bytes.Index(lower[off:], []byte(tag))
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(tag)
		if end >= len(lower) {
			return -1
		}
		switch lower[end] {
		case '>', ' ', '\t', '\n', '\r', '\f', '/':
			return i
		}
		if tag == "<!doctype" {
			return i
		}
		off = end
	}
}
