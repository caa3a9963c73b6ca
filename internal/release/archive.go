package release

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// WriteArchive writes the zip archive path holding only the binary bin,
// stored as name at the archive's root, executable (mode 0755, which Rokit
// prefers and Unix installs keep), dated modified. The binary is the first
// and only entry: Foreman installs the archive's first file.
func WriteArchive(path, bin, name string, modified time.Time) (err error) {
	src, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read only
	return writeAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified.UTC()}
		h.SetMode(0o755)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := io.Copy(fw, src); err != nil {
			return fmt.Errorf("zip %s: %w", bin, err)
		}
		return zw.Close()
	})
}

// WriteSums writes path, the SHA-256 sums of files (paths), one
// "<hex>  <base name>" line each, sorted by name: the format `sha256sum -c`
// and `shasum -a 256 -c` check.
func WriteSums(path string, files []string) error {
	lines := make([]string, 0, len(files))
	for _, f := range files {
		sum, err := FileSHA256(f)
		if err != nil {
			return err
		}
		lines = append(lines, sum+"  "+filepath.Base(f)+"\n")
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] })
	return writeAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(lines, ""))
		return err
	})
}

// FileSHA256 is the hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeAtomic writes path through write into a temporary file beside it and
// renames it into place, so that a failed or interrupted release leaves no
// half-written file under the final name.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	// After a successful rename there is nothing left to remove.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := write(tmp); err != nil {
		_ = tmp.Close() // the write's error says more
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file private; a release's files are for everyone.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
