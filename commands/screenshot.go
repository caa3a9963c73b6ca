package commands

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/studio-bridge/studio-bridge/protocol"
	"github.com/studio-bridge/studio-bridge/protocol/actions"
)

// ScreenshotArgs are the screenshot command's arguments.
type ScreenshotArgs struct {
	Output string `json:"output" short:"o" word:"true" mcp:"-" usage:"PNG file to write (default: screenshot-<time>.png in the current folder)"`
	Base64 bool   `json:"base64" mcp:"-" usage:"print the PNG as base64 on stdout instead of writing a file"`
}

// ScreenshotData is the screenshot command's output.
type ScreenshotData struct {
	Path       string `json:"path,omitempty"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Bytes      int    `json:"bytes"`
	Base64Data string `json:"base64Data,omitempty"`
}

// Screenshot captures the Studio viewport.
var Screenshot = Define(Spec[ScreenshotArgs, ScreenshotData]{
	Definition: Definition{
		Name:         "screenshot",
		Title:        "Capture a Studio screenshot",
		Summary:      "Save a PNG of the Studio viewport.",
		Description:  "Capture a screenshot of the Roblox Studio 3D viewport. Returns the image as base64-encoded PNG data. Use this to see what the user sees in Studio.",
		NeedsSession: true,
		// the DataModel that renders: in Play the client (the edit DataModel
		// does not render the running game), in Run mode the server
		// (bridge.Resolve), in Edit the edit one
		DefaultContext: protocol.ContextClient,
		MCP:            true,
		Timeout:        15 * time.Second,
		Noun:           "Screenshot capture",
	},
	PrepareCLI: func(args *ScreenshotArgs, _ io.Reader) error {
		if args.Output == "" && !args.Base64 {
			args.Output = "screenshot-" + time.Now().Format("20060102-150405") + ".png"
		}
		return nil
	},
	Run: func(ctx context.Context, env *Env, args *ScreenshotArgs) (*Result, error) {
		var shot actions.ScreenshotResult
		env.status("capturing the Studio viewport…")
		if err := action(ctx, env, actions.Screenshot, actions.ScreenshotRequest{}, &shot, nil); err != nil {
			return nil, err
		}
		img, err := PNG(shot.Width, shot.Height, shot.Format, shot.Data)
		if err != nil {
			return nil, &protocol.Error{Code: protocol.CodeScreenshotFailed, Message: "Screenshot capture failed: " + err.Error()}
		}
		data := ScreenshotData{Width: shot.Width, Height: shot.Height, Bytes: len(img)}
		res := &Result{Image: img}
		switch {
		case args.Base64:
			data.Base64Data = base64.StdEncoding.EncodeToString(img)
			res.Text = data.Base64Data + "\n"
		case args.Output != "":
			if err := writeFileAtomic(args.Output, img); err != nil {
				return nil, err
			}
			data.Path = args.Output
			res.Text = fmt.Sprintf("%s (%d×%d, %d bytes)\n", args.Output, shot.Width, shot.Height, len(img))
		}
		res.Data = data
		return res, nil
	},
})

// PNG encodes raw straight-alpha RGBA pixels.
func PNG(w, h int, format string, pixels []byte) ([]byte, error) {
	if format != "rgba8" {
		return nil, fmt.Errorf("unsupported pixel format %q", format)
	}
	if w <= 0 || h <= 0 || w > 16384 || h > 16384 || len(pixels) != w*h*4 {
		return nil, fmt.Errorf("image of %d×%d needs %d bytes of RGBA, got %d", w, h, w*h*4, len(pixels))
	}
	img := &image.NRGBA{Pix: pixels, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeFileAtomic writes through a temporary file in the same folder, so a
// full disk or a crash never leaves half a file under the final name.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return writeError(path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	merr := os.Chmod(tmp.Name(), 0o644) // CreateTemp makes files private
	if err := errors.Join(werr, cerr, merr); err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the failed write is the error to report
		return writeError(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name()) // best effort: the failed rename is the error to report
		return writeError(path, err)
	}
	return nil
}

// writeError says why path could not be written in words a person can act
// on; nothing was left behind under its name.
func writeError(path string, err error) error {
	dir := filepath.Dir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: the folder %s does not exist (%w)", path, dir, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot write %s: no permission to write in %s (%w)", path, dir, err)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("cannot write %s: the disk is full; nothing was written (%w)", path, err)
	}
	return fmt.Errorf("cannot write %s: %w", path, err)
}
