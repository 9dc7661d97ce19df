package push

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	webpush "github.com/SherClockHolmes/webpush-go"
)

// Keys are this paddock's VAPID key pair (base64url, as browsers take the
// public one) and the key its capabilities are signed with.
type Keys struct {
	Public  string `json:"vapid_public"`
	Private string `json:"vapid_private"`
	Cap     []byte `json:"capability_key"`
}

const keysFile = "push-keys.json"

// LoadKeys reads the keys from dir, generating and saving them (mode 0600)
// on first use.
func LoadKeys(dir string) (*Keys, error) {
	p := filepath.Join(dir, keysFile)
	raw, err := os.ReadFile(p)
	if err == nil {
		var k Keys
		if err := json.Unmarshal(raw, &k); err != nil || k.Public == "" || k.Private == "" || len(k.Cap) < 32 {
			return nil, fmt.Errorf("push: %s is not paddock's push keys (move it away to make new ones; subscribed phones must then subscribe again)", p)
		}
		return &k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("push: %w", err)
	}
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return nil, fmt.Errorf("push: generating VAPID keys: %w", err)
	}
	k := &Keys{Public: pub, Private: priv, Cap: make([]byte, 32)}
	if _, err := rand.Read(k.Cap); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	raw, err = json.Marshal(k)
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	return k, nil
}

// Capability is the token that lets device decide item from a
// notification: bound to both, useless for any other item or device.
func (k *Keys) Capability(deviceID, itemID string) string {
	m := hmac.New(sha256.New, k.Cap)
	m.Write([]byte("paddock push capability\x00" + deviceID + "\x00" + itemID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCapability reports whether token is device's capability for item.
func (k *Keys) CheckCapability(deviceID, itemID, token string) bool {
	return hmac.Equal([]byte(token), []byte(k.Capability(deviceID, itemID)))
}
