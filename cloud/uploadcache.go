package cloud

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// UploadCache remembers, per place, the SHA-256 of the last place file
// uploaded there and the version it became, so an unchanged place is not
// uploaded again (test --cloud runs many tasks against one build; CI jobs
// of one matrix share the file with actions/cache). It lives in one JSON
// file under the project (DefaultUploadCache).
//
// A cache hit trusts that the version still holds those bytes: versions are
// immutable once saved, so it does as long as the place is not deleted.
type UploadCache struct {
	path string
	mu   sync.Mutex
}

// DefaultUploadCache is the cache file, relative to the project (the
// current folder).
const DefaultUploadCache = ".studio-bridge/upload-cache.json"

// maxCacheBytes bounds the cache file read.
const maxCacheBytes = 1 << 20

type cacheFile struct {
	Version int                   `json:"version"`
	Places  map[string]cacheEntry `json:"places"` // "universe/place"
}

type cacheEntry struct {
	SHA256       string `json:"sha256"`
	PlaceVersion int64  `json:"placeVersion"`
}

// NewUploadCache uses the file at path.
func NewUploadCache(path string) *UploadCache { return &UploadCache{path: path} }

func placeKey(universe, place int64) string {
	return strconv.FormatInt(universe, 10) + "/" + strconv.FormatInt(place, 10)
}

// read loads the file; a missing or unreadable one is an empty cache (the
// cost of a bad cache is one upload, never a wrong version).
func (u *UploadCache) read() cacheFile {
	empty := cacheFile{Version: 1, Places: map[string]cacheEntry{}}
	f, err := os.Open(u.path)
	if err != nil {
		return empty
	}
	defer func() { _ = f.Close() }()
	raw, err := io.ReadAll(io.LimitReader(f, maxCacheBytes+1))
	var c cacheFile
	if err != nil || len(raw) > maxCacheBytes || json.Unmarshal(raw, &c) != nil || c.Version != 1 || c.Places == nil {
		return empty
	}
	return c
}

// Lookup returns the version that already holds bytes with this digest.
func (u *UploadCache) Lookup(universe, place int64, digest string) (int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	e, ok := u.read().Places[placeKey(universe, place)]
	if !ok || e.SHA256 != digest || e.PlaceVersion <= 0 {
		return 0, false
	}
	return e.PlaceVersion, true
}

// Store records that version holds bytes with this digest.
func (u *UploadCache) Store(universe, place int64, digest string, version int64) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.read()
	c.Places[placeKey(universe, place)] = cacheEntry{SHA256: digest, PlaceVersion: version}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(u.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("upload cache %s: %w", u.path, err)
	}
	tmp, err := os.CreateTemp(dir, ".upload-cache.*")
	if err != nil {
		return fmt.Errorf("upload cache %s: %w", u.path, err)
	}
	_, werr := tmp.Write(append(raw, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("upload cache %s: %w", u.path, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), u.path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("upload cache %s: %w", u.path, err)
	}
	return nil
}

// FileDigest is the hex SHA-256 of the file at path (at most MaxPlaceBytes).
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxPlaceBytes+1))
	if err != nil {
		return "", err
	}
	if n > MaxPlaceBytes {
		return "", fmt.Errorf("%s is larger than %d MiB", path, MaxPlaceBytes>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// UploadPlaceCached uploads the place file unless cache (nil: no cache)
// says its bytes are already a version of that place; it returns the
// version and whether it uploaded.
func (c *Client) UploadPlaceCached(ctx context.Context, cache *UploadCache, universeID, placeID int64, path string) (int64, bool, error) {
	if cache == nil {
		v, err := c.UploadPlace(ctx, universeID, placeID, path)
		return v, err == nil, err
	}
	digest, err := FileDigest(path)
	if err != nil {
		return 0, false, err
	}
	if v, ok := cache.Lookup(universeID, placeID, digest); ok {
		c.log().Info("open cloud: place unchanged since its upload; not uploading", "place", placeID, "version", v, "sha256", digest[:12])
		return v, false, nil
	}
	v, err := c.UploadPlace(ctx, universeID, placeID, path)
	if err != nil {
		return 0, false, err
	}
	if err := cache.Store(universeID, placeID, digest, v); err != nil {
		c.log().Warn("open cloud: the upload cache could not be written; the next run uploads again", "err", err)
	}
	return v, true, nil
}
