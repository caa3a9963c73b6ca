// Package release builds what a studio-bridge release publishes, so that
// installing it needs no Go toolchain:
//
//   - one zip archive per platform, studio-bridge-<version>-<os>-<arch>.zip
//     (os windows, macos or linux; arch x86_64 or aarch64), holding only the
//     binary (with the Studio plugin embedded, see package plugin) at its
//     root, named and laid out so that Rokit, Aftman and Foreman install it
//     (docs/release.md says which rule of each tool every choice follows);
//   - studio-bridge-<version>-sha256sums.txt, the archives' SHA-256 sums in
//     the format `sha256sum -c` reads;
//   - the npm packages: @studio-bridge/cli, whose bin is a plain Node shim
//     (no dependencies, no postinstall download) that runs the binary of the
//     one platform package npm installed among its optionalDependencies
//     (@studio-bridge/cli-linux-x64 and so on, each limited by os and cpu).
//     They are made from the templates in npm/.
//
// scripts/release is the command (`task release`); the release workflow
// (.github/workflows/release.yml) runs it on a v* tag and publishes the
// result. The logic lives here, in Go, so that it runs the same on Windows,
// macOS and Linux and is tested: the layout on every test run, and the six
// real builds with `go test -tags releasetest ./internal/release/`.
package release
