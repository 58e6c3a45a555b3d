// Package mapcheck holds only a test: that ARCHITECTURE.md, the map a
// newcomer reads first, names no file, folder, symbol or make target that
// is not there (map_test.go says its rules).
package mapcheck
