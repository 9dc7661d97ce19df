// Package imagetest holds the image the tests attach to sessions: the
// 4×4 red PNG the real CLIs recorded when given one.
package imagetest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
)

// RedPNG is a 4×4 red PNG, as base64.
const RedPNG = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFUlEQVR4nGL5z4AATAxEcQABAAD//zRtAQqfxpGAAAAAAElFTkSuQmCC"

// RedPNGBytes is RedPNG decoded.
func RedPNGBytes() []byte {
	b, err := base64.StdEncoding.DecodeString(RedPNG)
	if err != nil {
		panic(err)
	}
	return b
}

// PNG is a w×h PNG of one colour: a distinct image when a test needs
// two.
func PNG(w, h int, c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}
