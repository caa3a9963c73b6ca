package commands

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// FuzzPNG feeds PNG what a plugin's screenshot answer carries (size, pixel
// format, pixel bytes), all of it from the network. It must never panic;
// it refuses any size that does not match the bytes; and whatever it
// accepts decodes back to exactly those pixels.
func FuzzPNG(f *testing.F) {
	f.Add(2, 1, "rgba8", []byte{255, 0, 0, 255, 0, 255, 0, 128})
	f.Add(1, 1, "rgba8", []byte{1, 2, 3})
	f.Add(-1, -4, "rgba8", []byte{1, 2, 3, 4})
	f.Add(1<<15, 1<<15, "rgba8", []byte{})
	f.Add(1, 1, "bgra8", []byte{1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, w, h int, format string, pixels []byte) {
		out, err := PNG(w, h, format, pixels)
		if err != nil {
			return
		}
		if format != "rgba8" || w <= 0 || h <= 0 || len(pixels) != w*h*4 {
			t.Fatalf("PNG accepted %d×%d %q with %d bytes", w, h, format, len(pixels))
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("PNG output does not decode: %v", err)
		}
		if img.Bounds() != image.Rect(0, 0, w, h) {
			t.Fatalf("decoded bounds %v, want %d×%d", img.Bounds(), w, h)
		}
		var got []byte
		switch m := img.(type) {
		case *image.NRGBA:
			got = m.Pix
		default: // an opaque image is written as RGB and decodes as another model
			for y := range h {
				for x := range w {
					r, g, b, a := m.At(x, y).RGBA()
					got = append(got, byte(r>>8), byte(g>>8), byte(b>>8), byte(a>>8))
				}
			}
		}
		if !bytes.Equal(got, pixels) {
			t.Fatalf("pixels changed through PNG")
		}
	})
}
