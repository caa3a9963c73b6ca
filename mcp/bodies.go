package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/studio-bridge/studio-bridge/protocol"
)

// MaxHTTPBodyBytes bounds one MCP request body over HTTP (the SDK's own
// default bound).
const MaxHTTPBodyBytes = sdk.DefaultMaxRequestBodyBytes

// BoundBodies checks every POST body before the SDK decodes it: at most
// MaxHTTPBodyBytes (413 otherwise), nested at most protocol.MaxJSONDepth
// deep and valid JSON (400 with a JSON-RPC parse error, -32700, otherwise).
// The SDK's decoder recurses once per nesting level, so a body of a few
// megabytes of "[" would overflow its stack and kill the process.
func BoundBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxHTTPBodyBytes))
		if err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				writeRPCError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("Invalid request: the body exceeds %d bytes", mbe.Limit))
				return
			}
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: could not read the request body")
			return
		}
		if err := protocol.CheckDepth(body, protocol.MaxJSONDepth); err != nil {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: "+err.Error())
			return
		}
		if !json.Valid(body) {
			writeRPCError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	JSONRPC string  `json:"jsonrpc"`
	ID      *string `json:"id"` // always null: the request's id could not be read
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeRPCError answers with a JSON-RPC error whose id is null.
func writeRPCError(w http.ResponseWriter, status int, code int64, message string) {
	resp := rpcError{JSONRPC: "2.0"}
	resp.Error.Code, resp.Error.Message = code, message
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
