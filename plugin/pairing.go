package plugin

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/pierrec/lz4/v4"
)

// Pairing (PROTOCOL.md 12.3): install-plugin writes the pairing key and the
// port into the plugin it installs by rewriting Placeholder, the value of
// CARRIER in src/Pairing.luau, to a Carrier of the same length. The Rojo
// build stores the module's Source in a PROP chunk of the binary model
// format (LZ4-compressed): Pair decompresses that one chunk, replaces the
// placeholder in place (the string's length prefix stays right) and writes
// the chunk back uncompressed, which the format allows; every other byte of
// the file stays the Rojo build's.
const Placeholder = "STUDIO-BRIDGE-PAIRING-PLACEHOLDER:install-plugin-writes-the-key-and-port-here:"

// Carrier is what install-plugin writes in Placeholder's place:
// "sbpair1:<64 hex digits of key>:<port, 5 digits>".
func Carrier(key []byte, port int) (string, error) {
	if len(key) != 32 {
		return "", fmt.Errorf("a pairing key is 32 bytes, not %d", len(key))
	}
	if port < 1 || port > 65535 {
		return "", fmt.Errorf("port %d is not 1-65535", port)
	}
	c := fmt.Sprintf("sbpair1:%s:%05d", hex.EncodeToString(key), port)
	if len(c) != len(Placeholder) {
		return "", errors.New("the pairing carrier and placeholder differ in length") // a build defect
	}
	return c, nil
}

const (
	headerBytes      = 32 // "<roblox!", signature, version, counts, reserved
	chunkHeaderBytes = 16 // name, compressed and uncompressed length, reserved
	// maxChunkBytes bounds one chunk's uncompressed size: the plugin is
	// well under a megabyte, this is far above it.
	maxChunkBytes = 64 << 20
)

var magic = []byte("<roblox!\x89\xff\r\n\x1a\n")

// chunk is one chunk of a binary model file: where it lies and its data,
// uncompressed.
type chunk struct {
	start, end int // the chunk's bytes in the file, header included
	name       string
	data       []byte
}

// chunks parses a binary model file into its chunks.
func chunks(rbxm []byte) ([]chunk, error) {
	if len(rbxm) < headerBytes || !bytes.Equal(rbxm[:len(magic)], magic) {
		return nil, errors.New("not a Roblox binary model file")
	}
	var out []chunk
	for pos := headerBytes; ; {
		if len(rbxm)-pos < chunkHeaderBytes {
			return nil, fmt.Errorf("truncated chunk header at byte %d", pos)
		}
		name := string(rbxm[pos : pos+4])
		clen := int(binary.LittleEndian.Uint32(rbxm[pos+4:]))
		ulen := int(binary.LittleEndian.Uint32(rbxm[pos+8:]))
		body := pos + chunkHeaderBytes
		size := clen
		if clen == 0 {
			size = ulen
		}
		if ulen > maxChunkBytes || size > len(rbxm)-body {
			return nil, fmt.Errorf("chunk %q at byte %d runs past the end of the file", name, pos)
		}
		raw := rbxm[body : body+size]
		data := raw
		if clen != 0 {
			if len(raw) >= 4 && bytes.Equal(raw[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}) {
				return nil, fmt.Errorf("chunk %q is zstd-compressed; this build reads LZ4 chunks only", name)
			}
			data = make([]byte, ulen)
			n, err := lz4.UncompressBlock(raw, data)
			if err != nil || n != ulen {
				return nil, fmt.Errorf("chunk %q at byte %d: bad LZ4 data (%v)", name, pos, err)
			}
		}
		out = append(out, chunk{start: pos, end: body + size, name: name, data: data})
		pos = body + size
		if name == "END\x00" {
			if pos != len(rbxm) {
				return nil, fmt.Errorf("%d bytes after the END chunk", len(rbxm)-pos)
			}
			return out, nil
		}
	}
}

// Pair returns a copy of the built plugin rbxm carrying key and port in
// place of Placeholder, which must occur exactly once in it.
func Pair(rbxm []byte, key []byte, port int) ([]byte, error) {
	carrier, err := Carrier(key, port)
	if err != nil {
		return nil, err
	}
	cs, err := chunks(rbxm)
	if err != nil {
		return nil, fmt.Errorf("the built plugin: %w", err)
	}
	found := -1
	for i, c := range cs {
		switch n := bytes.Count(c.data, []byte(Placeholder)); {
		case n == 0:
		case n > 1 || found >= 0:
			return nil, errors.New("the built plugin holds the pairing placeholder more than once")
		default:
			found = i
		}
	}
	if found < 0 {
		return nil, errors.New("the built plugin holds no pairing placeholder (was it paired already?)")
	}
	c := cs[found]
	data := bytes.Replace(c.data, []byte(Placeholder), []byte(carrier), 1)
	out := make([]byte, 0, len(rbxm)+len(data))
	out = append(out, rbxm[:c.start]...)
	var hdr [chunkHeaderBytes]byte
	copy(hdr[:4], c.name)
	binary.LittleEndian.PutUint32(hdr[8:], uint32(len(data))) // compressed length 0: stored
	out = append(out, hdr[:]...)
	out = append(out, data...)
	return append(out, rbxm[c.end:]...), nil
}

// Paired reads the key and port an installed plugin carries (install-plugin
// checks what it wrote); ok is false for an unpaired plugin.
func Paired(rbxm []byte) (key []byte, port int, ok bool, err error) {
	cs, err := chunks(rbxm)
	if err != nil {
		return nil, 0, false, err
	}
	prefix := []byte(`Pairing.CARRIER = "`)
	for _, c := range cs {
		i := bytes.Index(c.data, prefix)
		if i < 0 || len(c.data)-i-len(prefix) < len(Placeholder) {
			continue
		}
		i += len(prefix)
		v := string(c.data[i : i+len(Placeholder)])
		if v == Placeholder {
			return nil, 0, false, nil
		}
		if v[:8] != "sbpair1:" {
			return nil, 0, false, errors.New("the plugin's pairing carrier is malformed")
		}
		key, err := hex.DecodeString(v[8:72])
		if err != nil || v[72] != ':' {
			return nil, 0, false, errors.New("the plugin's pairing carrier is malformed")
		}
		port, err := strconv.Atoi(v[73:])
		if err != nil {
			return nil, 0, false, errors.New("the plugin's pairing carrier is malformed")
		}
		return key, port, true, nil
	}
	return nil, 0, false, nil
}
