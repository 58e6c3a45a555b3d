module github.com/sabmutex/sabmutex

go 1.26

require (
	github.com/chromedp/chromedp v0.22.1
	github.com/tetratelabs/wazero v1.12.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	golang.org/x/sys v0.44.0 // indirect
)
