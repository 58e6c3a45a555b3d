module github.com/sabmutex/sabmutex

go 1.26.8
