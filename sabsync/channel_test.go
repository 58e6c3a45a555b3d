//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Goroutines of one program send and receive through a small Channel:
// every message arrives exactly once, whole, as the kind it was sent as,
// and each consumer sees each producer's messages in the order sent; then
// Close drains the rest and ends the receivers with ErrClosed.
func TestChannelGoroutines(t *testing.T) {
	const producers, consumers = 3, 2
	n := scaled(2000)
	sab := newSAB(ChannelSlots(4, 16))
	ch, err := NewChannel(sab, 0, 4, 16)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sending, receiving sync.WaitGroup
	for p := range producers {
		sending.Add(1)
		go func() {
			defer sending.Done()
			for k := range n {
				msg := fmt.Sprintf("%d:%d", p, k)
				if k%2 == 0 {
					err = ch.SendString(ctx, msg)
				} else {
					err = ch.Send(ctx, []byte(msg))
				}
				if err != nil {
					t.Errorf("send %s: %v", msg, err)
				}
			}
		}()
	}
	seen := make([][]int, producers)
	for p := range seen {
		seen[p] = make([]int, n)
	}
	var mu sync.Mutex
	for range consumers {
		receiving.Add(1)
		go func() {
			defer receiving.Done()
			last := []int{-1, -1, -1}
			for {
				m, err := ch.Recv(ctx)
				if errors.Is(err, ErrClosed) {
					return
				}
				var p, k int
				if _, e := fmt.Sscanf(m.String(), "%d:%d", &p, &k); err != nil || e != nil || p < 0 || p >= producers || k < 0 || k >= n {
					t.Errorf("received %q (%v)", m.String(), err)
					return
				}
				if m.Text != (k%2 == 0) {
					t.Errorf("%q arrived with Text %v", m.String(), m.Text)
				}
				if k <= last[p] {
					t.Errorf("from producer %d, %d arrived after %d", p, k, last[p])
					return
				}
				last[p] = k
				mu.Lock()
				seen[p][k]++
				mu.Unlock()
			}
		}()
	}
	waitOrFail(t, &sending)
	ch.Close()
	waitOrFail(t, &receiving)
	missing, twice := 0, 0
	for p := range seen {
		for _, c := range seen[p] {
			missing, twice = missing+b2i(c == 0), twice+b2i(c > 1)
		}
	}
	if missing+twice != 0 {
		t.Errorf("%d of %d messages missing, %d more than once", missing, producers*n, twice)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The edges: a message too long, a full channel, a timed-out receive, a
// send after Close, a second Close, and a mismatched second view; each
// changes nothing.
func TestChannelErrors(t *testing.T) {
	sab := newSAB(ChannelSlots(3, 8)) // room for the mismatched view below
	ch, err := NewChannel(sab, 0, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewChannel(sab, 0, 3, 8); err == nil || !strings.Contains(err.Error(), "capacity 2") {
		t.Errorf("a second view with another capacity: %v", err)
	}
	if err := ch.Send(context.Background(), make([]byte, 9)); err == nil || !strings.Contains(err.Error(), "nothing was sent") || ch.Len() != 0 {
		t.Errorf("a 9-byte message in an 8-byte channel: %v, length %d", err, ch.Len())
	}
	for i := range 2 {
		if ok, err := ch.TrySend([]byte{byte(i)}); !ok || err != nil {
			t.Fatalf("trySend %d: %v %v", i, ok, err)
		}
	}
	if ok, err := ch.TrySend([]byte{9}); ok || err != nil {
		t.Errorf("trySend when full: %v %v, want false", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := ch.Send(ctx, []byte{9}); !errors.Is(err, context.DeadlineExceeded) || ch.Len() != 2 {
		t.Errorf("send when full with a 30 ms deadline: %v, length %d", err, ch.Len())
	}
	for i := range 2 {
		if m, ok := ch.TryRecv(); !ok || len(m.Data) != 1 || m.Data[0] != byte(i) || m.Text {
			t.Fatalf("tryRecv %d: %v %v", i, m, ok)
		}
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if _, err := ch.Recv(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("recv when empty with a 30 ms deadline: %v", err)
	}
	if err := ch.SendString(context.Background(), "last"); err != nil {
		t.Fatal(err)
	}
	ch.Close()
	if err := ch.Send(context.Background(), []byte{1}); !errors.Is(err, ErrClosed) || !ch.Closed() {
		t.Errorf("send after close: %v", err)
	}
	if m, err := ch.Recv(context.Background()); err != nil || m.String() != "last" || !m.Text {
		t.Errorf("recv after close: %q %v, want the message left", m.String(), err)
	}
	if _, err := ch.Recv(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("recv when closed and drained: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "closed already") {
				t.Errorf("a second Close: %v", r)
			}
		}()
		ch.Close()
	}()
}
