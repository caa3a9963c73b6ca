package testrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
)

// The timings file (--timings FILE): each spec's last measured duration,
// read to balance shards and written back by every run that measured
// specs, so the next split is better than this one.

// timingsFile is the file's shape; Version guards future changes.
type timingsFile struct {
	Version int              `json:"version"`
	Specs   map[string]int64 `json:"specs"` // spec file → milliseconds
}

// maxTimingsBytes bounds the file read (200 bytes a spec for 5000 specs
// is 1 MiB).
const maxTimingsBytes = 4 << 20

// ReadTimings reads FILE; a missing file is no timings (the first run
// balances by count), anything else unreadable is an error that names it.
func ReadTimings(path string) (map[string]int64, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--timings %s: %w", path, err)
	}
	defer func() { _ = f.Close() }()
	raw, err := io.ReadAll(io.LimitReader(f, maxTimingsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--timings %s: %w", path, err)
	}
	if len(raw) > maxTimingsBytes {
		return nil, fmt.Errorf("--timings %s is larger than %d MiB; delete it and the next run writes a new one", path, maxTimingsBytes>>20)
	}
	var tf timingsFile
	if err := json.Unmarshal(raw, &tf); err != nil || tf.Version != 1 {
		return nil, fmt.Errorf("--timings %s is not a studio-bridge timings file (version 1); delete it and the next run writes a new one", path)
	}
	return tf.Specs, nil
}

// EncodeTimings is the timings file's content: old updated with measured
// (spec → ms), keeping the specs this run did not measure (another
// shard's). It is nil when nothing was measured: the file stays as it is.
// The command writes it atomically (commands.writeTimings).
func EncodeTimings(old, measured map[string]int64) []byte {
	if len(measured) == 0 {
		return nil
	}
	all := maps.Clone(old)
	if all == nil {
		all = map[string]int64{}
	}
	maps.Copy(all, measured)
	raw, _ := json.MarshalIndent(timingsFile{Version: 1, Specs: all}, "", "  ") // maps of strings to ints always encode
	return append(raw, '\n')
}
