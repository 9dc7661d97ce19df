//go:build linux

package procscan

import "testing"

func TestTTYName(t *testing.T) {
	dev := func(major, minor uint64) uint64 { return minor&0xff | major<<8 | (minor&^0xff)<<12 }
	for _, c := range []struct {
		nr   uint64
		want string
	}{
		{0, ""},
		{34818, "/dev/pts/2"},
		{dev(136, 3), "/dev/pts/3"},
		{dev(136, 300), "/dev/pts/300"},
		{dev(137, 1), "/dev/pts/257"},
		{dev(4, 1), "/dev/tty1"},
		{dev(4, 65), "/dev/ttyS1"},
		{dev(188, 0), "/dev/char/188:0"}, // ttyUSB0; pid -1 has no fds to ask
	} {
		if got := TTYName(-1, c.nr); got != c.want {
			t.Errorf("TTYName(%d) = %q, want %q", c.nr, got, c.want)
		}
	}
}
