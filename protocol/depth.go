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
		switch data[i] {
		case '"':
			end := stringEnd(data, i+1)
			if end < 0 {
				return nil // unterminated string: malformed, and no deeper
			}
			i = end
		case '[', '{':
			depth++
			if depth > limit {
				return &TooDeepError{Limit: limit, Offset: i}
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// stringEnd returns the index of the quote that closes the JSON string whose
// contents start at data[from], or -1 when it is not closed. A quote is
// escaped exactly when an odd run of backslashes precedes it.
func stringEnd(data []byte, from int) int {
	for i := from; i < len(data); {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		n := 0
		for j := q - 1; j >= from && data[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}
