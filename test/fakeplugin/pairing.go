package fakeplugin

// DefaultKey is the pairing key of a window whose Config names none. Package
// kit sets it to the key of the token it gives every test's config directory,
// so that fake plugins pair with the tests' hosts as an installed plugin
// pairs with the user's.
var DefaultKey []byte
