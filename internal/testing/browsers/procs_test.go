package browsers

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A child that leaves the process group (setsid) is still found by its tag
// and killed.
func TestKillAllFindsEscapees(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	tag := randomID()
	cmd := exec.Command("sh", "-c", "setsid sleep 60 & sleep 60 & wait")
	cmd.Env = append(os.Environ(), tagVar+"="+tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	pgid := cmd.Process.Pid
	var all, inGroup []int
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		all, inGroup = procsOf(pgid, tag), procsOf(pgid, "")
		if len(all) == 3 && len(inGroup) == 2 {
			break
		}
	}
	if len(all) != 3 || len(inGroup) != 2 {
		t.Fatalf("tagged %v, in the group %v; want 3 and 2", all, inGroup)
	}
	if left := killAll(pgid, tag, time.Now().Add(5*time.Second)); len(left) > 0 {
		t.Fatalf("left %v", left)
	}
	<-done
	if left := procsOf(pgid, tag); len(left) > 0 {
		t.Errorf("still there: %v", left)
	}
}

// tail closes seen when its mark is written, in one Write or split over
// several, and not before.
func TestTailSeesItsMark(t *testing.T) {
	seen := func(tl *tail) bool {
		select {
		case <-tl.seen:
			return true
		default:
			return false
		}
	}
	tl := newTail("WebProcess CRASHED")
	tl.Write([]byte("** (MiniBrowser): WARNING **: WebProcess CRA"))
	if seen(tl) {
		t.Fatal("seen after half the mark")
	}
	tl.Write([]byte("SHED\n"))
	if !seen(tl) {
		t.Fatal("not seen after the mark's second half")
	}
	tl.Write([]byte("WebProcess CRASHED")) // a second time: no double close
	if s := tl.String(); !strings.HasSuffix(s, "CRASHED") {
		t.Fatalf("kept %q", s)
	}
	none := newTail("")
	none.Write([]byte("WebProcess CRASHED"))
	if seen(none) {
		t.Fatal("a tail without a mark saw one")
	}
}
