package protocol

import (
	"bytes"
	"fmt"
)

// MaxJSONDepth bounds how deeply arrays and objects may nest in one frame,
// envelope included. The JSON decoder recurses once per level, so a frame of
// a few megabytes of "[" would otherwise overflow the stack and kill the
// process (a Go stack overflow is fatal, not a panic).
const MaxJSONDepth = 512

// TooDeepError is the error of a JSON text nested deeper than its limit.
type TooDeepError struct {
	Limit  int // the depth allowed
	Offset int // byte offset of the first bracket past the limit
}

func (e *TooDeepError) Error() string {
	return fmt.Sprintf("JSON nests deeper than %d levels (at byte %d)", e.Limit, e.Offset)
}

// CheckDepth scans data once, without decoding it, and returns a
// *TooDeepError when its arrays and objects nest more than limit levels
// deep. Brackets inside strings (escapes included) do not count. It does not
// validate the JSON: a malformed text that nests within the limit passes,
// and the decoder rejects it.
func CheckDepth(data []byte, limit int) error {
	// Most frames hold fewer brackets than the limit in all: then no
	// nesting can exceed it, and two vectorised counts settle it.
	if bytes.Count(data, []byte{'['})+bytes.Count(data, []byte{'{'}) <= limit {
		return nil
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !structural[c] {
			continue
		}
		switch c {
		case '"':
			// Skip the string: the next unescaped quote ends it.
			j := i + 1
			for {
				if j >= len(data) {
					return nil // unterminated string: malformed, and no deeper
				}
				if data[j] == '"' {
					break
				}
				if data[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '[', '{':
			depth++
			if depth > limit {
				return &TooDeepError{Limit: limit, Offset: i}
			}
		default: // ']', '}'
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// structural marks the bytes CheckDepth stops at.
var structural = [256]bool{'"': true, '[': true, '{': true, ']': true, '}': true}
