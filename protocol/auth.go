package protocol

// MaxTokenBytes bounds the token a client-hello may carry (the user's token,
// package authtoken: 43 characters when generated, at most 256 when the user
// sets STUDIO_BRIDGE_TOKEN).
const MaxTokenBytes = 256
