//go:build !linux

package fulldisk

import "errors"

func mount(string, int64) error { return errors.New("only Linux mounts a tmpfs") }

func unmount(string) error { return nil }
