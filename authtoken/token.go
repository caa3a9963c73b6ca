package authtoken

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables and the file name.
const (
	// EnvToken, when set, is the token: it wins over the file.
	EnvToken = "STUDIO_BRIDGE_TOKEN"
	// EnvConfigDir overrides the config directory (tests, portable setups).
	EnvConfigDir = "STUDIO_BRIDGE_CONFIG_DIR"
	// FileName is the token file's name in the config directory.
	FileName = "token"
)

// Bounds of a token: a generated one is 43 characters (32 random bytes,
// base64url); one the user sets must be long enough to be a secret and short
// enough to bound the client-hello.
const (
	MinBytes = 16
	MaxBytes = 256
)

// Token is the user's token and where it came from.
type Token struct {
	// Value is the secret itself. Never log it.
	Value string
	// Source says where it lives, for messages: the file's path, or
	// EnvToken.
	Source string
	// DirFromEnv: the file's config directory was named by EnvConfigDir
	// (not the default), which a wrong-token message says.
	DirFromEnv bool
}

// String never reveals the secret: a Token printed by mistake (a log
// attribute, a %v) shows only where it lives.
func (t Token) String() string { return "token from " + t.Source }

// NoConfigDirError means there is no config directory to keep the token in,
// and STUDIO_BRIDGE_TOKEN is not set.
type NoConfigDirError struct{ Err error }

func (e *NoConfigDirError) Error() string {
	return fmt.Sprintf("studio-bridge needs the user's token, but there is no config directory to keep it in (%v): set %s to the bridge host's token (`studio-bridge token` prints it where the host runs), or set %s to a directory only you can write",
		e.Err, EnvToken, EnvConfigDir)
}

func (e *NoConfigDirError) Unwrap() error { return e.Err }

// Settings is where the tokens come from: the config directory and the
// token variables, read from the environment once, by the CLI (FromEnv).
// Library code (bridge, commands, mcp, terminal) is handed Settings, or the
// token and directory resolved from them, and never reads the environment
// itself: so tests give each their own and run side by side.
type Settings struct {
	// ConfigDir is the config directory (absolute); "" when there is none,
	// and DirErr says why.
	ConfigDir string
	DirErr    error
	// DirFromEnv: ConfigDir came from STUDIO_BRIDGE_CONFIG_DIR.
	DirFromEnv bool
	// Token and MCPToken are STUDIO_BRIDGE_TOKEN and
	// STUDIO_BRIDGE_MCP_TOKEN; "" when unset.
	Token, MCPToken string
}

// FromEnv reads the Settings from this process's environment:
// STUDIO_BRIDGE_CONFIG_DIR, else studio-bridge in the user's config
// directory; STUDIO_BRIDGE_TOKEN and STUDIO_BRIDGE_MCP_TOKEN.
func FromEnv() Settings { return Lookup(os.Getenv, os.UserConfigDir) }

// Lookup is FromEnv with the environment and the user's config directory
// given (getenv like os.Getenv, userConfigDir like os.UserConfigDir).
func Lookup(getenv func(string) string, userConfigDir func() (string, error)) Settings {
	s := Settings{Token: getenv(EnvToken), MCPToken: getenv(EnvMCPToken)}
	if d := getenv(EnvConfigDir); d != "" {
		s.ConfigDir, s.DirErr = filepath.Abs(d)
		s.DirFromEnv = true
		return s
	}
	d, err := userConfigDir()
	if err != nil {
		s.DirErr = err
		return s
	}
	s.ConfigDir = filepath.Join(d, "studio-bridge")
	return s
}

// InDir is the Settings of a process whose config directory is dir and
// whose environment sets no token: the token files in dir are the tokens.
func InDir(dir string) Settings { return Settings{ConfigDir: dir} }

// Dir is the config directory, or a NoConfigDirError.
func (s Settings) Dir() (string, error) {
	if s.ConfigDir == "" {
		err := s.DirErr
		if err == nil {
			err = errors.New("none was given")
		}
		return "", &NoConfigDirError{Err: err}
	}
	return s.ConfigDir, nil
}

// Resolve is the token this process presents and, as host, accepts:
// STUDIO_BRIDGE_TOKEN if set, else the token file's (created if missing).
func (s Settings) Resolve() (Token, error) { return s.resolve(EnvToken, s.Token, FileName) }

// Dir is FromEnv().Dir(): the CLI's; library code takes Settings.
func Dir() (string, error) { return FromEnv().Dir() }

// Resolve is FromEnv().Resolve(): the CLI's; library code takes Settings.
func Resolve() (Token, error) { return FromEnv().Resolve() }

// resolve is the token value v (from environment variable env) if set,
// else the one in the config directory's file name (created if missing).
func (s Settings) resolve(env, v, name string) (Token, error) {
	if v != "" {
		if err := Validate(v); err != nil {
			return Token{}, fmt.Errorf("%s: %w", env, err)
		}
		return Token{Value: v, Source: env}, nil
	}
	dir, err := s.Dir()
	if err != nil {
		return Token{}, err
	}
	t, err := loadOrCreate(dir, name)
	t.DirFromEnv = s.DirFromEnv && err == nil
	return t, err
}

// LoadOrCreate reads the token file in dir, creating dir and the file
// (with a new random token) if they do not exist.
func LoadOrCreate(dir string) (Token, error) { return loadOrCreate(dir, FileName) }

// loadOrCreate reads the token file name in dir, creating dir and the file
// (with a new random token) if they do not exist.
func loadOrCreate(dir, name string) (Token, error) {
	path := filepath.Join(dir, name)
	for range 3 {
		v, err := read(path)
		if err == nil {
			return Token{Value: v, Source: path}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return Token{}, err
		}
		if err := create(dir, path, Generate()); err != nil && !errors.Is(err, fs.ErrExist) {
			return Token{}, err
		}
		// Ours or a racing process's: the file is in place now, whole.
	}
	return Token{}, fmt.Errorf("token file %s keeps disappearing; is something deleting it?", path)
}

// read reads and checks the token file.
func read(path string) (string, error) {
	f, fi, err := openToken(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	if err := checkPrivate(path, fi); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+2))
	if err != nil {
		return "", fmt.Errorf("read the token file: %w", err)
	}
	v := strings.TrimSpace(string(data))
	if err := Validate(v); err != nil {
		return "", fmt.Errorf("token file %s: %w; remove it and studio-bridge makes a new one (every studio-bridge process must then be restarted)", path, err)
	}
	return v, nil
}

// create writes a token (value) to a private temporary file in dir and moves
// it to path without ever replacing an existing file: fs.ErrExist means
// another process was first, and its token stands.
func create(dir, path, value string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the config directory for the token: %w", err)
	}
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return fmt.Errorf("create the token file: %w", err)
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // gone after a move; else ours to remove
	if err := restrict(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("make the token file private: %w", err)
	}
	if _, err := f.WriteString(value + "\n"); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the token file: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the token file: %w", err)
	}
	if err := moveExclusive(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("put the token file in place: %w", err)
	}
	return nil
}

// Generate returns a new random token: 32 bytes from crypto/rand, base64url.
func Generate() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (Go 1.24+): it crashes the program rather than return a weak token
	return base64.RawURLEncoding.EncodeToString(b)
}

// Validate checks a token's shape: MinBytes to MaxBytes printable ASCII
// characters, no spaces.
func Validate(v string) error {
	if len(v) < MinBytes || len(v) > MaxBytes {
		return fmt.Errorf("a token is %d to %d characters (this one is %d)", MinBytes, MaxBytes, len(v))
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return errors.New("a token is printable ASCII without spaces")
		}
	}
	return nil
}

// Equal compares a presented token with the expected one in constant time
// (hashing first, so that not even the length leaks). An empty expected
// token matches nothing.
func Equal(presented, expected string) bool {
	if expected == "" {
		return false
	}
	a, b := sha256.Sum256([]byte(presented)), sha256.Sum256([]byte(expected))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
