package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// CSRFToken derives the CSRF token for a device session: base64url of
// HMAC-SHA256(key, "csrf:"+deviceToken). Deriving it means nothing extra is
// stored, it changes when the session does, and it cannot be computed
// without both the server key and the session token. It is defense in depth
// beside the Sec-Fetch-Site/Origin check. An empty key or token yields "",
// which CheckCSRF never accepts.
func CSRFToken(deviceToken string, key []byte) string {
	if len(key) == 0 || deviceToken == "" {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("csrf:"))
	m.Write([]byte(deviceToken))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF reports whether got is the CSRF token for deviceToken, comparing
// in constant time.
func CheckCSRF(got, deviceToken string, key []byte) bool {
	want := CSRFToken(deviceToken, key)
	if want == "" || got == "" {
		return false
	}
	return hmac.Equal([]byte(got), []byte(want))
}
