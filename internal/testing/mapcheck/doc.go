// Package mapcheck holds only a test: that ARCHITECTURE.md, the map a
// newcomer reads first, names no file, folder, symbol or make target that
// is not there, and puts no name in a file or folder that does not define
// it (map_test.go says its rules).
package mapcheck
