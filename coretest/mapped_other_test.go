//go:build !linux

package coretest

import "context"

// Without Linux's private file mappings, an instance's memory is wazero's
// own, and restore compares it with its image page by page (image_test.go).
type mappedMemory struct{}

func (*mappedMemory) takeImage() {}
func (*mappedMemory) putBack()   {}

func withMappedMemory(ctx context.Context, m **mappedMemory) context.Context { return ctx }
