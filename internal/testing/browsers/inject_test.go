package browsers

import "testing"

func TestInsertScript(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<!doctype html><meta charset=utf-8><script>x</script>", "<!doctype html>" + scriptTag + "<meta charset=utf-8><script>x</script>"},
		{"<html lang=en><head><title>t</title>", "<html lang=en><head>" + scriptTag + "<title>t</title>"},
		{"<HTML><HEAD class=x>", "<HTML><HEAD class=x>" + scriptTag},
		{"<!DOCTYPE html><html><body><header>h</header>", "<!DOCTYPE html><html>" + scriptTag + "<body><header>h</header>"},
		{"just text", scriptTag + "just text"},
	} {
		if got := string(insertScript([]byte(c.in))); got != c.want {
			t.Errorf("insertScript(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
