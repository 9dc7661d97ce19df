package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPair: arbitrary code, user agent and address never panic, and pairing
// succeeds only with the real code (as a person may type it: case and
// surrounding space forgiven), and then only once.
func FuzzPair(f *testing.F) {
	r := newRig(f, Options{})
	ctx := context.Background()
	real := r.code(f)
	f.Add(real, iPhoneSafari, "192.0.2.1")
	f.Add(strings.ToUpper(real), "", "")
	f.Add(strings.Repeat("a", 26), "\x00\xff", "::1%eth0")
	f.Add("", strings.Repeat("Mozilla ", 200), "not-an-ip")
	f.Add(real[:25]+"1", "curl/8", "2001:db8::1")
	paired := 0
	f.Fuzz(func(t *testing.T, code, ua, ip string) {
		token, dev, err := r.svc.Pair(ctx, code, ua, ip)
		if err != nil {
			if token != "" || dev.ID != "" {
				t.Fatalf("failed Pair leaked token or device")
			}
			for _, want := range []error{ErrInvalidCode, ErrUsedCode, ErrExpiredCode} {
				if errors.Is(err, want) {
					return
				}
			}
			t.Fatalf("unexpected error %v", err)
		}
		if strings.ToLower(strings.TrimSpace(code)) != real {
			t.Fatalf("Pair succeeded with %q, which is not the real code", code)
		}
		paired++
		if paired > 1 {
			t.Fatal("the code paired twice")
		}
		if !utf8.ValidString(dev.Name) || !utf8.ValidString(dev.UserAgent) || len(dev.UserAgent) > maxUserAgent || len(dev.LastIP) > maxIP {
			t.Fatalf("unclean device fields: %+v", dev)
		}
		if _, err := r.svc.Device(WithClientIP(ctx, ip), token); err != nil {
			t.Fatalf("new session does not authenticate: %v", err)
		}
	})
}

// FuzzDeviceToken: no arbitrary string authenticates as a device or an API
// token, or panics, unless it is the real secret.
func FuzzDeviceToken(f *testing.F) {
	r := newRig(f, Options{})
	ctx := context.Background()
	device, _, err := r.svc.Pair(ctx, r.code(f), iPhoneSafari, "192.0.2.1")
	if err != nil {
		f.Fatal(err)
	}
	api, _, err := r.svc.CreateToken(ctx, "fuzz")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("")
	f.Add(strings.ToUpper(device))
	f.Add(device[:51] + "b")
	f.Add(api)
	f.Add(strings.TrimPrefix(api, TokenPrefix))
	f.Add(TokenPrefix + device)
	f.Add(strings.Repeat("a", 52))
	f.Add("\x00" + device)
	f.Fuzz(func(t *testing.T, token string) {
		if _, err := r.svc.Device(ctx, token); token != device {
			if !errors.Is(err, ErrUnauthenticated) {
				t.Fatalf("Device(%q) err = %v, want ErrUnauthenticated", token, err)
			}
		} else if err != nil {
			t.Fatalf("real device token refused: %v", err)
		}
		if _, err := r.svc.Token(ctx, token); token != api {
			if !errors.Is(err, ErrUnauthenticated) {
				t.Fatalf("Token(%q) err = %v, want ErrUnauthenticated", token, err)
			}
		} else if err != nil {
			t.Fatalf("real api token refused: %v", err)
		}
		if token != CSRFToken(device, []byte("k")) && CheckCSRF(token, device, []byte("k")) {
			t.Fatalf("CheckCSRF accepted %q", token)
		}
	})
}
