package browsers

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// startXvfb starts a virtual X server in a process group of its own and
// returns it and its display (":N"). It waits for Xvfb to report the display
// number on fd 3, until ctx ends.
func startXvfb(ctx context.Context, env []string, out *tail) (*exec.Cmd, string, error) {
	path, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, "", fmt.Errorf("browsers: webkit needs Xvfb: install it (Debian: apt-get install xvfb, or `make browsers`)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	cmd := exec.Command(path, "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "1280x1024x24")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return nil, "", fmt.Errorf("browsers: starting Xvfb: %w", err)
	}
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		got <- line{s, err}
	}()
	fail := func(err error) (*exec.Cmd, string, error) {
		killGroup(cmd.Process.Pid)
		cmd.Wait()
		return nil, "", err
	}
	select {
	case l := <-got:
		n := strings.TrimSpace(l.s)
		if n == "" {
			return fail(fmt.Errorf("browsers: Xvfb reported no display (%v): %s", l.err, out.String()))
		}
		return cmd, ":" + n, nil
	case <-ctx.Done():
		return fail(fmt.Errorf("browsers: Xvfb did not report its display: %w", ctx.Err()))
	case <-time.After(30 * time.Second):
		return fail(fmt.Errorf("browsers: Xvfb did not report its display within 30 s: %s", out.String()))
	}
}
