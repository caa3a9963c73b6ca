package actions

// Screenshot is the screenshot action's name.
const Screenshot = "screenshot"

// ScreenshotRequest is the screenshot action's payload: none ({}).
type ScreenshotRequest struct{}

// ScreenshotResult is the viewport's raw pixels: Format "rgba8", Data the
// RGBA bytes row by row from the top-left (base64 on the wire). It always
// travels as chunk frames.
type ScreenshotResult struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Format string `json:"format"`
	Data   []byte `json:"data"`
}
