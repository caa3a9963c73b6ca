package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MaxPlaceBytes bounds a place file read for upload.
const MaxPlaceBytes = 500 << 20

// PlaceContentType is the upload's content type for a place file name:
// .rbxl is binary, .rbxlx XML; anything else is refused.
func PlaceContentType(name string) (string, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".rbxl":
		return "application/octet-stream", nil
	case ".rbxlx":
		return "application/xml", nil
	}
	return "", fmt.Errorf("%s is not a place file: give a .rbxl or .rbxlx", name)
}

// UploadPlace saves the place file at path as a new Saved version of the
// place (players keep the published one) and returns its version number.
// A lost answer is not re-sent (it may have saved a version).
func (c *Client) UploadPlace(ctx context.Context, universeID, placeID int64, path string) (int64, error) {
	ctype, err := PlaceContentType(path)
	if err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if st.Size() > MaxPlaceBytes {
		return 0, fmt.Errorf("%s is larger than %d MiB", path, MaxPlaceBytes>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	ids := fmt.Sprintf("universe %d, place %d", universeID, placeID)
	out, err := c.do(ctx, request{op: "upload place", method: "POST",
		path: fmt.Sprintf("/universes/v1/%d/places/%d/versions?versionType=Saved", universeID, placeID),
		body: data, contentType: ctype, maxBytes: maxSmallBytes, ids: ids, create: true})
	if err != nil {
		if ctx.Err() != nil {
			return 0, &Error{Kind: KindInterrupted, Err: ctx.Err(), Message: "interrupted during the place upload; a version may or may not have been saved"}
		}
		return 0, err
	}
	var v struct {
		VersionNumber int64 `json:"versionNumber"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.VersionNumber <= 0 {
		return 0, &Error{Kind: KindUnavailable, Op: "upload place", Message: fmt.Sprintf("the answer carries no version number: %.200s", c.scrub(string(out)))}
	}
	c.log().Info("open cloud: place saved", "universe", universeID, "place", placeID, "version", v.VersionNumber)
	return v.VersionNumber, nil
}
