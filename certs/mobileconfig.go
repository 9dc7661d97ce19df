package certs

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// MobileConfig wraps a CA certificate in an unsigned iOS configuration
// profile (.mobileconfig) with one com.apple.security.root payload. Serve it
// as application/x-apple-aspen-config; after installing it the user must
// still enable full trust under Settings → General → About → Certificate
// Trust Settings.
//
// name is the profile's display name ("" uses the CA's common name).
// uuidSeed identifies this paddock install (for example its data dir or
// hostname) and does two things:
//
//   - PayloadUUIDs are derived from uuidSeed and the CA fingerprint, so
//     downloading the profile again yields byte-identical output that iOS
//     recognises as the same profile;
//   - PayloadIdentifier is derived from uuidSeed alone, so after a CA
//     rotation the new profile replaces the old one on the phone instead of
//     leaving the retired CA trusted beside it.
//
// The plist is written by hand (encoding/xml cannot emit plist's <true/>
// form) with every piece of text passed through xml.EscapeText.
func MobileConfig(caPEM []byte, name string, uuidSeed string) ([]byte, error) {
	ca, err := parseCertPEM(caPEM)
	if err != nil {
		return nil, fmt.Errorf("certs: mobileconfig: %w", err)
	}
	if !ca.IsCA {
		return nil, errors.New("certs: mobileconfig: certificate is not a CA")
	}
	if name == "" {
		name = ca.Subject.CommonName
	}
	fp := fingerprint(ca.Raw)
	seedSum := sha256.Sum256([]byte(uuidSeed))
	identifier := "local.paddock.ca." + hex.EncodeToString(seedSum[:8])
	// Name-based (version 5) UUIDs in a namespace of our own.
	ns := uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://paddock.invalid/mobileconfig"))
	id := func(purpose string) string {
		return strings.ToUpper(uuid.NewSHA1(ns, []byte(uuidSeed+"\x00"+fp+"\x00"+purpose)).String())
	}

	root := plistDict{
		{"PayloadCertificateFileName", "paddock-ca.cer"},
		{"PayloadContent", ca.Raw},
		{"PayloadDescription", "Adds the paddock local CA root certificate."},
		{"PayloadDisplayName", ca.Subject.CommonName},
		{"PayloadIdentifier", identifier + ".root"},
		{"PayloadType", "com.apple.security.root"},
		{"PayloadUUID", id("root")},
		{"PayloadVersion", 1},
	}
	profile := plistDict{
		{"PayloadContent", []any{root}},
		{"PayloadDescription", "Lets this device trust the paddock dashboard served from " +
			"your computer. After installing, turn on full trust for \"" + ca.Subject.CommonName +
			"\" in Settings > General > About > Certificate Trust Settings. " +
			"SHA-256 fingerprint: " + fp},
		{"PayloadDisplayName", name},
		{"PayloadIdentifier", identifier},
		{"PayloadOrganization", "paddock"},
		{"PayloadRemovalDisallowed", false},
		{"PayloadType", "Configuration"},
		{"PayloadUUID", id("profile")},
		{"PayloadVersion", 1},
	}

	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(`<plist version="1.0">` + "\n")
	if err := writePlist(&b, profile, 0); err != nil {
		return nil, fmt.Errorf("certs: mobileconfig: %w", err)
	}
	b.WriteString("</plist>\n")
	return b.Bytes(), nil
}

// plistDict keeps keys in the order given; plist dicts are conventionally
// sorted, and a fixed order keeps the output byte-stable.
type plistDict []plistEntry

type plistEntry struct {
	key   string
	value any // string, int, bool, []byte, []any, plistDict
}

func writePlist(b *bytes.Buffer, v any, depth int) error {
	indent := strings.Repeat("\t", depth)
	switch v := v.(type) {
	case string:
		b.WriteString(indent + "<string>")
		if err := xml.EscapeText(b, []byte(v)); err != nil {
			return err
		}
		b.WriteString("</string>\n")
	case int:
		fmt.Fprintf(b, "%s<integer>%d</integer>\n", indent, v)
	case bool:
		if v {
			b.WriteString(indent + "<true/>\n")
		} else {
			b.WriteString(indent + "<false/>\n")
		}
	case []byte:
		// Base64's alphabet needs no XML escaping.
		b.WriteString(indent + "<data>" + base64.StdEncoding.EncodeToString(v) + "</data>\n")
	case []any:
		b.WriteString(indent + "<array>\n")
		for _, e := range v {
			if err := writePlist(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteString(indent + "</array>\n")
	case plistDict:
		b.WriteString(indent + "<dict>\n")
		for _, e := range v {
			b.WriteString(indent + "\t<key>")
			if err := xml.EscapeText(b, []byte(e.key)); err != nil {
				return err
			}
			b.WriteString("</key>\n")
			if err := writePlist(b, e.value, depth+1); err != nil {
				return err
			}
		}
		b.WriteString(indent + "</dict>\n")
	default:
		return fmt.Errorf("plist: unsupported type %T", v)
	}
	return nil
}
