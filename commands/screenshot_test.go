package commands

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFileAtomicErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := dir + "/no/such/folder/shot.png"
	err := writeFileAtomic(missing, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "the folder "+dir+"/no/such/folder does not exist") {
		t.Fatalf("missing folder: %v", err)
	}
	err = writeError("/x/shot.png", fmt.Errorf("write: %w", syscall.ENOSPC))
	if !strings.Contains(err.Error(), "the disk is full") || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("full disk: %v", err)
	}
	ok := dir + "/shot.png"
	if err := writeFileAtomic(ok, []byte("png")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("left a temporary file: %s", e.Name())
		}
	}
}
